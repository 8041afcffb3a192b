// `turn record RUN [--store DIR] [--test FILE] [--name NAME]` (docs/testing.md): a stored run's model
// exchanges become the recording of a test, so a bug seen in a real run is a test in one command.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CassetteError, defaultStoreDir, openStore, STORE_FILE, recordRun, RecordError, StoreError, storeMessage, type RunStore } from '../runtime/index.js';
import { COMMANDS } from './commands.js';
import { EXIT, UsageError, err, parse } from './usage.js';

export async function recordCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, COMMANDS.record.options, 'record');
  if (positionals.length !== 1) throw new UsageError(`\`turn record\` takes a RUN id, got ${positionals.length} argument(s)`);
  if (values.test !== undefined && !values.test.endsWith('_test.tn')) throw new UsageError(`--test must name a test file (*_test.tn), got \`${values.test}\``);
  const folder = values.store !== undefined ? path.resolve(values.store) : defaultStoreDir();
  if (!fs.existsSync(path.join(folder, STORE_FILE))) {
    // reading a run creates no store (nor its .gitignore)
    err(`turn: there is no Turn store in ${folder}, so no run to find there (check --store or $TURN_STORE_DIR)`);
    return EXIT.runtimeError;
  }
  let store: RunStore;
  try {
    store = openStore(folder);
  } catch (e) {
    err(`turn: ${storeMessage(e)}`);
    return EXIT.runtimeError;
  }
  try {
    const r = await recordRun(store, positionals[0], { ...(values.test !== undefined ? { testFile: values.test } : {}), ...(values.name !== undefined ? { name: values.name } : {}) });
    const shown = (p: string): string => path.relative(process.cwd(), p) || p;
    if (r.created === 'file') process.stdout.write(`wrote ${shown(r.testFile)} with test "${r.name}"\n`);
    else if (r.created === 'test') process.stdout.write(`added test "${r.name}" to ${shown(r.testFile)}\n`);
    process.stdout.write(`recorded ${r.exchanges} model exchange${r.exchanges === 1 ? '' : 's'} of run ${positionals[0]} in ${shown(r.cassette)}\n`);
    process.stdout.write(`run it with: turn test ${shown(r.testFile)} --filter ${JSON.stringify(r.name)}\n`);
    return EXIT.ok;
  } catch (e) {
    if (e instanceof StoreError || e instanceof RecordError || e instanceof CassetteError) {
      err(`turn: ${e.message}`);
      return EXIT.runtimeError;
    }
    throw e;
  } finally {
    try {
      store.close();
    } catch {
      // already closed
    }
  }
}
