// `npm run bench`: runs every benchmark, prints one table, and writes it as JSON and Markdown
// under bench/results/.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { machine, markdownTable, type Row } from './harness.js';
import { vmLoopBenchmark } from './vm-loop.js';
import { schemaValidationBenchmark } from './schema-validation.js';
import { actorBenchmarks } from './actors.js';

async function main(): Promise<void> {
  const rows: Row[] = [];
  rows.push(await vmLoopBenchmark());
  rows.push(await schemaValidationBenchmark());
  rows.push(...(await actorBenchmarks()));
  rows.push(await (await import('./lsp.js')).lspBenchmark()); // also prints its own median and p95
  const table = markdownTable(rows);
  const header = `Measured ${new Date().toISOString()} on ${machine()}`;
  process.stdout.write(`${header}\n\n${table}\n`);
  const dir = path.join(__dirname, 'results');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'latest.json'), JSON.stringify({ machine: machine(), date: new Date().toISOString(), rows }, null, 2) + '\n');
  fs.writeFileSync(path.join(dir, 'latest.md'), `${header}\n\n${table}\n`);
}

main().catch((e) => {
  process.stderr.write(`bench: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
});
