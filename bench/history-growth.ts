// History that grows with the work, not its square (issue 45): an agent loop whose context grows
// each step — every step appends one message, and every model call is asked with all of them — run
// durably for 1,000 steps. Turn journals each call's request as references to content-addressed
// blocks (runtime/durable/request-blocks.ts); its anchors are the same loop journaling each full
// request inline (what a journal of whole requests stores), and LangGraph.js with its messages in a
// DeltaChannel (1.7's answer to the same problem: checkpoints hold the channel's writes, with a full
// snapshot every 100 updates) and SqliteSaver at synchronous=FULL. Reported: store bytes per step and
// time per step at 1,000 steps, and the exponent k of store bytes ∝ steps^k fitted on 250, 500 and
// 1,000 steps (1: linear; 2: the square).
//
// Alone: node --import tsx bench/history-growth.ts
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { Annotation, DeltaChannel, END, START, StateGraph } from '@langchain/langgraph';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { openStoreFile } from '../runtime/store/open.js';
import { Durable, JournalWriter, POLICY_VERSIONS, SEMANTICS_VERSION } from '../runtime/durable/index.js';
import { VM } from '../runtime/vm/index.js';
import { compile } from './actors.js';
import { growthExponent, measurePair, perOp, quantity, row, type Row } from './harness.js';

export const HISTORY_STEPS = 1_000;
const FIT_SIZES = [250, 500, HISTORY_STEPS];

// Both sides: the model answers at once with a short reply that depends on what it was asked; each
// step appends a message of about 60 characters (the user's turn with the model's reply).
const answer = (asked: number, step: number): string => `answer ${step} after ${asked} messages`;
const message = (step: number, reply: string): string => `user ${step}: look at item ${step}; ${reply}`;

const turnProgram = (steps: number) => `
let i = 0;
while i < ${steps} {
  let reply = infer Str { "What next?"; };
  context.append("user " + i + ": look at item " + i + "; " + reply);
  let i = i + 1;
}
return i;
`;

let turnStep = 0;
const turnHost = {
  output: () => {},
  infer: async (request: { context?: string[] }) => ({ value: answer(request.context?.length ?? 0, turnStep++), confidence: 1 }),
  tool: async () => 0,
};

function storedBytes(file: string): number {
  const size = (f: string) => (fs.existsSync(f) ? fs.statSync(f).size : 0);
  return size(file) + size(file + '-wal');
}

function fresh(file: string): void {
  for (const f of [file, file + '-wal', file + '-shm']) fs.rmSync(f, { force: true });
}

async function turnLoop(bundle: Awaited<ReturnType<typeof compile>>, steps: number, file: string, requests: 'blocks' | 'inline'): Promise<number> {
  fresh(file);
  turnStep = 0;
  const store = openStoreFile(file);
  try {
    const run = store.createRun({ entry: 'history.tn', bytecodeHash: bundle.version, semanticsVersion: SEMANTICS_VERSION, policies: POLICY_VERSIONS });
    const vm = new VM(bundle, turnHost, { maxSteps: 0 });
    const durable = new Durable(vm, run, new JournalWriter(store, run.id, undefined), []);
    durable.requestJournal = requests;
    vm.durable = durable;
    const out = await Promise.race([vm.run(), durable.stopped]);
    if (!('ok' in out) || !out.ok || out.json !== steps) throw new Error('the durable Turn loop did not finish');
    store.setRunStatus(run.id, 'done');
  } finally {
    store.close();
  }
  return storedBytes(file);
}

// LangGraph: `messages` in a DeltaChannel (appending reducer), an agent node that asks the model with
// all of them and appends the next message.
const concat = (state: string[], writes: string[][]): string[] => state.concat(...writes);
const HistoryState = Annotation.Root({
  messages: new DeltaChannel<string[], string[]>(concat, { initialValueFactory: () => [] }) as unknown as ReturnType<typeof Annotation<string[]>>,
  step: Annotation<number>({ reducer: (_, b) => b, default: () => 0 }),
  limit: Annotation<number>({ reducer: (_, b) => b, default: () => 0 }),
});

function historyGraph() {
  return new StateGraph(HistoryState)
    .addNode('agent', async (s) => {
      const reply = answer(s.messages.length, s.step);
      return { messages: [message(s.step, reply)], step: s.step + 1 };
    })
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', (s) => (s.step < s.limit ? 'agent' : END));
}

let thread = 0;
async function langgraphLoop(steps: number, file: string): Promise<number> {
  fresh(file);
  const db = new Database(file);
  db.pragma('synchronous = FULL'); // the same durability as ours: an fsync on every commit
  const graph = historyGraph().compile({ checkpointer: new SqliteSaver(db) });
  const out = await graph.invoke({ limit: steps }, { configurable: { thread_id: `h${++thread}` }, recursionLimit: steps + 10 });
  if (out.step !== steps || out.messages.length !== steps) throw new Error(`the LangGraph loop did not finish (${out.step}, ${out.messages.length})`);
  db.close();
  return storedBytes(file);
}

/** k of bytes ∝ steps^k, fitted on log–log (growthExponent fits the per-step figure: k − 1). */
function bytesExponent(points: { n: number; bytes: number }[]): number {
  return 1 + growthExponent(points.map((p) => ({ n: p.n, perOp: p.bytes / p.n })));
}

export async function historyGrowthBenchmarks(): Promise<Row[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-bench-history-'));
  try {
    const sides = {
      blocks: (n: number, b: Awaited<ReturnType<typeof compile>>) => turnLoop(b, n, path.join(dir, 'blocks.db'), 'blocks'),
      inline: (n: number, b: Awaited<ReturnType<typeof compile>>) => turnLoop(b, n, path.join(dir, 'inline.db'), 'inline'),
      langgraph: (n: number) => langgraphLoop(n, path.join(dir, 'langgraph.db')),
    };
    const fit: Record<keyof typeof sides, { n: number; bytes: number }[]> = { blocks: [], inline: [], langgraph: [] };
    for (const n of FIT_SIZES) {
      const bundle = await compile(turnProgram(n));
      for (const side of Object.keys(sides) as (keyof typeof sides)[]) fit[side].push({ n, bytes: await sides[side](n, bundle) });
    }
    const bundle = await compile(turnProgram(HISTORY_STEPS));
    const opts = { warmup: 1, samples: 3 };
    const vsInline = await measurePair(() => sides.blocks(HISTORY_STEPS, bundle), () => sides.inline(HISTORY_STEPS, bundle), opts);
    const vsLangGraph = await measurePair(() => sides.blocks(HISTORY_STEPS, bundle), () => sides.langgraph(HISTORY_STEPS), opts);
    const at = (side: keyof typeof sides) => fit[side][fit[side].length - 1].bytes / HISTORY_STEPS;
    const k = (side: keyof typeof sides) => bytesExponent(fit[side]).toFixed(2);
    const steps = HISTORY_STEPS.toLocaleString('en');
    const fitted = `bytes ∝ steps^k fitted on ${FIT_SIZES.join(', ')} steps: Turn k = ${k('blocks')}, full requests k = ${k('inline')}, LangGraph k = ${k('langgraph')} (target ≤ 1.1)`;
    return [
      row(`growing-context agent loop, ${steps} steps, durable: store bytes per step`, quantity(at('blocks'), 'B'), 'the same loop journaling each full request', quantity(at('inline'), 'B'), fitted),
      row(`growing-context agent loop, ${steps} steps, durable: store bytes per step`, quantity(at('blocks'), 'B'), 'LangGraph.js, messages in a DeltaChannel + SqliteSaver (FULL)', quantity(at('langgraph'), 'B'), 'the database file and its WAL after the run, divided by the steps'),
      row(`growing-context agent loop, ${steps} steps, durable: time per step`, perOp(vsInline.ours, HISTORY_STEPS), 'the same loop journaling each full request', perOp(vsInline.anchor, HISTORY_STEPS)),
      row(`growing-context agent loop, ${steps} steps, durable: time per step`, perOp(vsLangGraph.ours, HISTORY_STEPS), 'LangGraph.js, DeltaChannel + SqliteSaver (FULL)', perOp(vsLangGraph.anchor, HISTORY_STEPS),
        `on ${os.tmpdir()}; Turn: one model call and one context entry per step, journaled and group-committed; LangGraph: one super-step per step`),
    ];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  (async () => {
    const { markdownTable } = await import('./harness.js');
    process.stdout.write(`load average ${os.loadavg()[0].toFixed(2)} at the start\n`);
    process.stdout.write(markdownTable(await historyGrowthBenchmarks()) + '\n');
  })().catch((e) => {
    process.stderr.write(`bench: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exitCode = 1;
  });
}
