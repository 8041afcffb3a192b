// Runs a Turn program that absorbs a spec from `dir` against a local test server, through the run
// API: the program is written to `dir/name`, its schema cache is `dir/.schemas` (TURN_SCHEMA_DIR,
// restored after), nothing is fetched at compile time, and the network grant is 127.0.0.1 only.
// Shared by the wire tests of test/absorb/.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startRun, type RunResult } from '../../runtime/index.js';

export async function runAbsorbed(dir: string, name: string, source: string): Promise<{ result: RunResult; lines: string[] }> {
  const file = path.join(dir, name);
  fs.writeFileSync(file, source);
  const saved = process.env.TURN_SCHEMA_DIR;
  process.env.TURN_SCHEMA_DIR = path.join(dir, '.schemas');
  const lines: string[] = [];
  try {
    const r = await startRun({ file, cwd: dir, model: 'mock', authority: { allowNet: ['127.0.0.1:*'] }, fetchSchemas: false, onOutput: (l) => lines.push(l) });
    return { result: await r.start(), lines };
  } finally {
    if (saved === undefined) delete process.env.TURN_SCHEMA_DIR;
    else process.env.TURN_SCHEMA_DIR = saved;
  }
}
