// `npm run bench`: runs every benchmark, prints one table, and writes it as JSON and Markdown
// under bench/results/. Sections: Turn's paper figures beside ours, peers and floors measured in
// the same run, scaling 1K → 100K, then the store's and the editor's own anchors. See
// docs/performance.md for the method.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { inSection, machine, markdownTable, type Row } from './harness.js';
import { vmLoopBenchmark } from './vm-loop.js';
import { schemaValidationBenchmark } from './schema-validation.js';
import { PAPER_SECTION, PEER_SECTION, actorBenchmarks } from './actors.js';
import { storeBenchmarks } from './store.js';
import { durabilityBenchmarks } from './durability.js';
import { checkpointSaveBenchmarks } from './checkpoint-save.js';
import { peerBenchmarks } from './peers.js';
import { scalingBenchmarks } from './scaling.js';
import { coldStartBenchmarks } from './coldstart.js';
import { snapshotBenchmarks } from './snapshot.js';
import { warmBenchmarks } from './warm.js';
import { agentBenchmarks } from './agent.js';
import { historyGrowthBenchmarks } from './history-growth.js';
import { inferMockBenchmarks } from './infer-mock.js';
import { restateBenchmarks } from './restate.js';
import { turnV1Benchmarks } from './turn-v1.js';
import { panelBenchmarks } from './panel.js';
import { comparison, previousRun } from './history.js';

async function main(): Promise<void> {
  const started = Date.now();
  const load = os.loadavg()[0];
  const rows: Row[] = [];
  const actors = await actorBenchmarks();
  const store = await storeBenchmarks();
  rows.push(...inSection(PAPER_SECTION, [...actors.paper, ...(await schemaValidationBenchmark()), ...store.filter((r) => r.paper)]));
  rows.push(...inSection(PEER_SECTION, [...(await peerBenchmarks()), ...(await agentBenchmarks()), ...(await historyGrowthBenchmarks()), ...(await inferMockBenchmarks()), ...actors.peers, await vmLoopBenchmark()]));
  rows.push(...(await scalingBenchmarks()));
  rows.push(...store.filter((r) => !r.paper));
  rows.push(...(await durabilityBenchmarks()));
  rows.push(...(await checkpointSaveBenchmarks()));
  rows.push(await (await import('./lsp.js')).lspBenchmark()); // also prints its own median and p95
  rows.push(...(await panelBenchmarks())); // the run panel's deltas at 10 and 1,000 streamed workers
  rows.push(...(await coldStartBenchmarks())); // needs dist/ (npm run build)
  rows.push(...(await snapshotBenchmarks())); // a V8 startup snapshot of dist/cli.js, measured against the code cache
  rows.push(...(await warmBenchmarks())); // N runs in one started process against N processes
  rows.push(...(await restateBenchmarks())); // needs dist/: restate-server + `turn serve` workers (docs/scale-out.md)
  inSection('Store, durability and editor (anchors measured in the same run)', rows);
  // Turn v1 as a peer: only with TURN_V1_BIN (bench/turn-v1.ts), else one line saying it was skipped
  const v1 = turnV1Benchmarks();
  rows.push(...inSection('Turn v1, side by side (TURN_V1_BIN; whole processes, alternated)', [...v1.rows, ...(await (await import('./lsp-peer.js')).lspPeerBenchmarks())]));
  const seconds = (Date.now() - started) / 1000;
  const table = markdownTable(rows);
  const date = new Date().toISOString();
  const header = `Measured ${date} on ${machine()}; load average ${load.toFixed(2)} at the start; the run took ${seconds.toFixed(0)} s.${v1.skipped ? `\n\n${v1.skipped}.` : ''}`;
  process.stdout.write(`${header}\n\n${table}\n`);
  const dir = path.join(__dirname, 'results');
  fs.mkdirSync(dir, { recursive: true });
  // the previous run goes to bench/results/history/, and this one is compared with it
  const compared = comparison(rows, previousRun(dir));
  process.stdout.write(`\n${compared}\n`);
  fs.writeFileSync(path.join(dir, 'latest.json'), JSON.stringify({ machine: machine(), date, loadAverage: load, seconds, rows }, null, 2) + '\n');
  fs.writeFileSync(path.join(dir, 'latest.md'), `${header}\n\n${table}\n\n${compared}\n`);
  fs.mkdirSync(path.join(dir, 'history'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'history', `${date.replace(/[:.]/g, '-')}.json`), JSON.stringify({ machine: machine(), date, loadAverage: load, seconds, rows }, null, 2) + '\n');
}

main().catch((e) => {
  process.stderr.write(`bench: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
});
