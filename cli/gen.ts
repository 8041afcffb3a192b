// `turn gen ts FILE --out DIR [--watch]`: writes FILE's typed TypeScript client (runtime/embed/gen-ts.ts,
// docs/embedding.md) as DIR/FILE.ts. With --watch, writes it again on each change beside FILE (cli/watch.ts).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { generateClient } from '../runtime/embed/gen-ts.js';
import { TurnError } from '../runtime/embed/errors.js';
import { writeFileAtomic } from '../runtime/fs-atomic.js';
import { COMMANDS } from './commands.js';
import { EXIT, UsageError, err, parse } from './usage.js';

export async function genCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, COMMANDS.gen.options, 'gen');
  const [target, file, ...more] = positionals;
  if (target !== 'ts') throw new UsageError(target === undefined ? '`turn gen` needs a target: `turn gen ts FILE --out DIR`' : `\`turn gen\` writes TypeScript clients only: \`turn gen ts FILE --out DIR\`, not \`${target}\``, 'gen');
  if (file === undefined || more.length > 0) throw new UsageError('`turn gen ts` takes exactly one FILE', 'gen');
  if (values.out === undefined) throw new UsageError('`turn gen ts` needs --out DIR, the folder the client is written to', 'gen');
  if (values.watch) {
    const { watch, withoutWatch } = await import('./watch.js');
    return watch('gen', withoutWatch(args), [file]);
  }
  let generated;
  try {
    generated = await generateClient(file, { outDir: values.out, ...(values['import-from'] !== undefined ? { importFrom: values['import-from'] } : {}) });
  } catch (e) {
    if (!(e instanceof TurnError)) throw e;
    err(e.kind === 'compile' ? e.diagnostics.join('\n') : `turn: ${e.message}`);
    return e.kind === 'input' || e.kind === 'compile' || e.kind === 'invalid' ? EXIT.compileError : EXIT.runtimeError;
  }
  fs.mkdirSync(values.out, { recursive: true });
  const written = path.join(values.out, generated.fileName);
  writeFileAtomic(written, generated.text);
  for (const key of generated.skipped) err(`turn: warning: "${key}" is not a closure: the client leaves it out`);
  err(`turn: wrote ${written} (${generated.functions.map((f) => f.name).join(', ')})`);
  return EXIT.ok;
}
