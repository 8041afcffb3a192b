// Agent-step overhead against LangGraph.js (issue 17): the same agent loop — a model call answered
// at once by a fake provider, a tool call, a state update — for 1,000 steps, then a fan-out of 100
// parallel branches (each a model call and a tool call), written idiomatically in LangGraph.js
// (a StateGraph of an `agent` and a `tools` node; `Send` for the fan-out) and in Turn (a loop; a
// `gather spawn_each`). Each is run without persistence and durably: LangGraph with its SQLite
// checkpointer at synchronous=FULL (an fsync per commit, as ours), Turn with its run store (every
// step journaled, group-committed). Reported: time per step and per branch, and bytes stored per step.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { Annotation, END, START, Send, StateGraph } from '@langchain/langgraph';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { openStoreFile } from '../runtime/store/open.js';
import { Durable, JournalWriter, POLICY_VERSIONS, SEMANTICS_VERSION } from '../runtime/durable/index.js';
import { VM, runBundle } from '../runtime/vm/index.js';
import { compile } from './actors.js';
import { measurePair, perOp, quantity, row, type Row } from './harness.js';

export const AGENT_STEPS = 1_000;
export const BRANCHES = 100;

// ---- the fake provider and the tool, shared by both sides: both answer at once

const fakeModel = async (prompt: string): Promise<string> => `answer to ${prompt}`;
const fakeTool = async (input: string): Promise<number> => input.length;

// ---- Turn

const TURN_LOOP = `
let total = 0;
let last = "";
let i = 0;
while i < ${AGENT_STEPS} {
  let last = infer Str { "step " + i; };
  let n = call("time_now_ms");
  let total = total + 1;
  let i = i + 1;
}
return total;
`;

const TURN_FANOUT = `
let branch = turn(i: Num) -> Num {
  let a = infer Str { "branch " + i; };
  let n = call("time_now_ms");
  return 1;
};
let results = gather spawn_each(call("range", ${BRANCHES}), branch);
return call("len", results);
`;

const turnHost = {
  output: () => {},
  infer: async (request: { prompt?: unknown }) => ({ value: await fakeModel(String(request.prompt ?? '')), confidence: 1 }),
  tool: async () => fakeTool('now'),
};

async function turnPlain(bundle: Awaited<ReturnType<typeof compile>>, expect: number): Promise<void> {
  const out = await runBundle(bundle, turnHost, { maxSteps: 0 });
  if (!out.ok || out.json !== expect) throw new Error(`the Turn agent did not finish: ${out.ok ? String(out.json) : out.error.message}`);
}

async function turnDurable(bundle: Awaited<ReturnType<typeof compile>>, expect: number, file: string): Promise<number> {
  fs.rmSync(file, { force: true });
  fs.rmSync(file + '-wal', { force: true });
  const store = openStoreFile(file);
  try {
    const run = store.createRun({ entry: 'agent.tn', bytecodeHash: bundle.version, semanticsVersion: SEMANTICS_VERSION, policies: POLICY_VERSIONS });
    const vm = new VM(bundle, turnHost, { maxSteps: 0 });
    const durable = new Durable(vm, run, new JournalWriter(store, run.id, undefined), []);
    vm.durable = durable;
    const out = await Promise.race([vm.run(), durable.stopped]);
    if (!('ok' in out) || !out.ok || out.json !== expect) throw new Error('the durable Turn agent did not finish');
    store.setRunStatus(run.id, 'done');
  } finally {
    store.close();
  }
  return storedBytes(file);
}

// ---- LangGraph.js

const LoopState = Annotation.Root({
  step: Annotation<number>({ reducer: (_, b) => b, default: () => 0 }),
  request: Annotation<string>({ reducer: (_, b) => b, default: () => '' }),
  last: Annotation<number>({ reducer: (_, b) => b, default: () => 0 }),
  total: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }),
});

function loopGraph() {
  return new StateGraph(LoopState)
    .addNode('agent', async (s) => ({ request: await fakeModel(`step ${s.step}`) }))
    .addNode('tools', async (s) => ({ last: await fakeTool(s.request), total: 1, step: s.step + 1 }))
    .addEdge(START, 'agent')
    .addEdge('agent', 'tools')
    .addConditionalEdges('tools', (s) => (s.step < AGENT_STEPS ? 'agent' : END));
}

const FanState = Annotation.Root({
  i: Annotation<number>({ reducer: (_, b) => b, default: () => 0 }),
  done: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }),
});

function fanGraph() {
  return new StateGraph(FanState)
    .addNode('branch', async (s) => {
      const a = await fakeModel(`branch ${s.i}`);
      await fakeTool(a);
      return { done: 1 };
    })
    .addConditionalEdges(START, () => Array.from({ length: BRANCHES }, (_, i) => new Send('branch', { i })))
    .addEdge('branch', END);
}

function saver(file: string): { saver: SqliteSaver; db: Database.Database } {
  fs.rmSync(file, { force: true });
  fs.rmSync(file + '-wal', { force: true });
  const db = new Database(file);
  db.pragma('synchronous = FULL'); // the same durability as ours: an fsync on every commit
  return { saver: new SqliteSaver(db), db };
}

let thread = 0;

async function langgraphLoop(file?: string): Promise<number> {
  const s = file ? saver(file) : undefined;
  const graph = loopGraph().compile(s ? { checkpointer: s.saver } : {});
  const out = await graph.invoke({}, { configurable: { thread_id: `t${++thread}` }, recursionLimit: AGENT_STEPS * 2 + 10 });
  if (out.total !== AGENT_STEPS) throw new Error(`the LangGraph agent did not finish (${out.total})`);
  s?.db.close();
  return file ? storedBytes(file) : 0;
}

async function langgraphFan(file?: string): Promise<void> {
  const s = file ? saver(file) : undefined;
  const graph = fanGraph().compile(s ? { checkpointer: s.saver } : {});
  const out = await graph.invoke({}, { configurable: { thread_id: `f${++thread}` } });
  if (out.done !== BRANCHES) throw new Error(`the LangGraph fan-out did not finish (${out.done})`);
  s?.db.close();
}

function storedBytes(file: string): number {
  const size = (f: string) => (fs.existsSync(f) ? fs.statSync(f).size : 0);
  return size(file) + size(file + '-wal');
}

export async function agentBenchmarks(): Promise<Row[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-bench-agent-'));
  try {
    const loop = await compile(TURN_LOOP);
    const fan = await compile(TURN_FANOUT);
    const opts = { warmup: 1, samples: 5 };
    const plain = await measurePair(() => turnPlain(loop, AGENT_STEPS), () => langgraphLoop(), opts);
    let turnBytes = 0;
    let lgBytes = 0;
    const durable = await measurePair(
      async () => (turnBytes = await turnDurable(loop, AGENT_STEPS, path.join(dir, 'turn.db'))),
      async () => (lgBytes = await langgraphLoop(path.join(dir, 'langgraph.db'))),
      opts,
    );
    const fanPlain = await measurePair(() => turnPlain(fan, BRANCHES), () => langgraphFan(), opts);
    const fanDurable = await measurePair(
      () => turnDurable(fan, BRANCHES, path.join(dir, 'turn-fan.db')),
      () => langgraphFan(path.join(dir, 'langgraph-fan.db')),
      opts,
    );
    const graph = 'LangGraph.js StateGraph (agent → tools → agent …)';
    return [
      row(`agent loop, ${AGENT_STEPS.toLocaleString('en')} steps (model call + tool call + state update), no persistence: time per step`, perOp(plain.ours, AGENT_STEPS), `${graph}, no checkpointer`, perOp(plain.anchor, AGENT_STEPS),
        'both: a fake model and a tool that answer at once; Turn: a while loop with infer and call("time_now_ms"); LangGraph: two nodes and a conditional edge'),
      row(`agent loop, ${AGENT_STEPS.toLocaleString('en')} steps, durable (fsync per commit): time per step`, perOp(durable.ours, AGENT_STEPS), `${graph} + SqliteSaver, synchronous=FULL`, perOp(durable.anchor, AGENT_STEPS),
        `Turn: every model reply and tool result journaled (intent + outcome), group-committed; LangGraph: a checkpoint per super-step (two per step); on ${os.tmpdir()}`),
      row('agent loop: bytes stored per step (durable)', quantity(turnBytes / AGENT_STEPS, 'B'), 'LangGraph SqliteSaver: checkpoints + writes', quantity(lgBytes / AGENT_STEPS, 'B'),
        'the database file and its WAL after the run, divided by the steps'),
      row(`fan-out of ${BRANCHES} parallel branches (model call + tool call each), no persistence: time per branch`, perOp(fanPlain.ours, BRANCHES), 'LangGraph.js Send to a branch node, no checkpointer', perOp(fanPlain.anchor, BRANCHES),
        'Turn: gather spawn_each over 100 processes; LangGraph: a conditional edge returning 100 Sends'),
      row(`fan-out of ${BRANCHES} parallel branches, durable: time per branch`, perOp(fanDurable.ours, BRANCHES), 'LangGraph.js Send + SqliteSaver, synchronous=FULL', perOp(fanDurable.anchor, BRANCHES)),
    ];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  (async () => {
    const { markdownTable } = await import('./harness.js');
    process.stdout.write(markdownTable(await agentBenchmarks()) + '\n');
  })().catch((e) => {
    process.stderr.write(`bench: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exitCode = 1;
  });
}
