// Actors: spawn + exit, send + receive, a ping-pong between two processes and memory per live
// process — each beside a plain-JavaScript floor measured in the same run. The floor is what the
// issue defines: an async function per actor with a FIFO mailbox (a `receive` that awaits when
// the mailbox is empty), so it pays the same promise machinery a JavaScript actor library would.
// Scaling (1K–100K processes, memory entries) is in bench/scaling.ts.
import { checkSource } from '../runtime/check/index.js';
import { compileBundle } from '../runtime/compile/index.js';
import { VM, runBundle } from '../runtime/vm/index.js';
import { inSection, measurePair, perOp, quantity, row, withPaper, type Row, type Sample } from './harness.js';

const host = { output: () => {}, infer: async () => ({ value: null, confidence: 1 }) };

export async function compile(source: string) {
  const checked = await checkSource('bench.tn', source);
  if (checked.diagnostics.length > 0) throw new Error(`benchmark program does not compile: ${checked.diagnostics[0].message}`);
  return compileBundle([{ path: '/bench/bench.tn', file: checked.file, program: checked.program, uses: checked.uses }], '/bench/bench.tn');
}

/** A Turn program compiled once, as a function that runs it `reps` times to its end. */
export async function programRunner(source: string, reps = 1): Promise<() => Promise<void>> {
  const bundle = await compile(source);
  return async () => {
    for (let r = 0; r < reps; r++) {
      const outcome = await runBundle(bundle, host, { maxSteps: 0 });
      if (!outcome.ok) throw new Error(outcome.error.message);
    }
  };
}

/** Ours and the floor measured in alternation, each divided into a per-operation figure (µs). */
export async function perOpPair(
  ours: () => unknown | Promise<unknown>,
  floor: () => unknown | Promise<unknown>,
  ops: number,
  options: { warmup?: number; samples?: number } = {},
): Promise<{ ours: Sample; floor: Sample }> {
  const m = await measurePair(ours, floor, options);
  return { ours: perOp(m.ours, ops), floor: perOp(m.anchor, ops) };
}

// ---------------------------------------------------------------------------------------------
// The JavaScript floor: an async function per actor, a FIFO mailbox.

/**
 * A mailbox whose receive is O(1) (issue 45): an array read from a moving head, compacted once the
 * head has passed half of it. The floor had `Array.prototype.shift`, which moves every message left
 * on each receive: quadratic once tens of thousands of exit signals wait, so the "spawn_link at
 * 100K" row compared ours with a floor slower than it should be.
 */
export class FloorMailbox {
  private items: unknown[] = [];
  private head = 0;
  get length(): number {
    return this.items.length - this.head;
  }
  push(message: unknown): void {
    this.items.push(message);
  }
  shift(): unknown {
    if (this.head >= this.items.length) return undefined;
    const message = this.items[this.head];
    this.items[this.head++] = undefined;
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return message;
  }
}

export interface FloorActor {
  mailbox: FloorMailbox;
  wake: (() => void) | null;
}

export function floorSend(to: FloorActor, message: unknown): void {
  to.mailbox.push(message);
  const wake = to.wake;
  if (wake) {
    to.wake = null;
    wake();
  }
}

export async function floorReceive(self: FloorActor): Promise<unknown> {
  while (self.mailbox.length === 0) await new Promise<void>((resolve) => (self.wake = resolve));
  return self.mailbox.shift();
}

/** Starts `body` as an actor: its own mailbox, its own async function; the promise is its result. */
export function floorSpawn<T>(body: (self: FloorActor) => Promise<T>): { actor: FloorActor; done: Promise<T> } {
  const actor: FloorActor = { mailbox: new FloorMailbox(), wake: null };
  return { actor, done: body(actor) };
}

/** The floor of `gather spawn_each(range(n), turn(i) { return i; })`: n actors started, all awaited. */
export async function floorSpawnGather(n: number): Promise<number> {
  const all: Promise<number>[] = [];
  for (let i = 0; i < n; i++) all.push(floorSpawn(async () => i).done);
  const results = await Promise.all(all);
  return results.length;
}

export function spawnProgram(n: number): string {
  return `gather spawn_each(call("range", ${n}), turn(i: Num) -> Num { return i; });`;
}

/** `spawn_link` of n children, then n `receive`s of their exit signals: the mailbox holds up to n messages. */
export function linkProgram(n: number): string {
  return `let i = 0; while i < ${n} { spawn_link turn() { return 1; }; let i = i + 1; } let j = 0; while j < ${n} { let m = receive; let j = j + 1; } return j;`;
}

/** Its floor: n actors that each send their exit to the parent's mailbox (O(1) receive), which receives n. */
export async function floorLinkExits(n: number): Promise<number> {
  const parent = floorSpawn(async (self) => {
    for (let i = 0; i < n; i++) floorSpawn(async () => floorSend(self, { type: 'ExitSignal', pid: i, result: 1 }));
    let got = 0;
    while (got < n) {
      await floorReceive(self);
      got++;
    }
    return got;
  });
  return parent.done;
}

const N = 20_000;
/** spawn_link + exit: the Turn v1 peer program's size (bench/turn-v1.ts) */
const N_LINK = 10_000;

export const PAPER_SECTION = "Turn's published figures (paper, Apple M4) beside ours";
export const PEER_SECTION = 'Peers and floors (same run, same inputs)';

/** Rows for the paper section (spawn, send) and the peer section (ping-pong, memory per process). */
export async function actorBenchmarks(): Promise<{ paper: Row[]; peers: Row[] }> {
  const paper: Row[] = [];
  const peers: Row[] = [];
  const floorName = 'JS floor: async function per actor, O(1) mailbox';

  // spawn + exit: every child runs to its end before gather returns.
  const spawn = await perOpPair(await programRunner(spawnProgram(N)), () => floorSpawnGather(N), N, { warmup: 5, samples: 21 });
  paper.push(
    withPaper(
      row('spawn + exit of a trivial process (µs each)', spawn.ours, floorName, spawn.floor,
        `${N.toLocaleString('en')} processes per sample (gather spawn_each); the floor starts ${N.toLocaleString('en')} async functions, each with its mailbox, and awaits them all`),
      '2–3 µs',
      3,
    ),
  );

  // spawn_link + exit, the exit signals received: the program bench/turn-v1.ts runs in both
  // languages as a whole process, here in this process against the floor (issue 45's ÷ floor target)
  const link = await perOpPair(await programRunner(linkProgram(N_LINK)), () => floorLinkExits(N_LINK), N_LINK, { warmup: 5, samples: 21 });
  peers.push(
    row(`spawn_link + exit, ${N_LINK.toLocaleString('en')} processes, exit signals received (µs each)`, link.ours, floorName, link.floor,
      'the Turn v1 peer program in this process: n spawn_link of a trivial child, then n receive of their exit signals; the floor\'s children each push their exit to the parent\'s O(1) mailbox'),
  );

  // send + receive: a process sends to itself and receives, N times.
  const send = await perOpPair(
    await programRunner(`let me = call("self"); let i = 0; while i < ${N} { send me, i; let m = receive; let i = i + 1; }`),
    () =>
      floorSpawn(async (self) => {
        let got = 0;
        for (let i = 0; i < N; i++) {
          floorSend(self, i);
          got += (await floorReceive(self)) as number;
        }
        return got;
      }).done,
    N,
    { warmup: 5, samples: 21 },
  );
  paper.push(
    withPaper(
      row('send + receive of a message (µs each)', send.ours, floorName, send.floor,
        'a process sends to itself, then receives; the floor\'s receive is an awaited async call'),
      '2–3 µs',
      3,
    ),
  );

  // Ping-pong: two processes, each message waits for the other side (a real switch per message).
  const ping = await perOpPair(
    await programRunner(
      `let parent = call("self");
let echo = spawn turn() { let i = 0; while i < ${N} { let m = receive; send parent, m; let i = i + 1; } return null; };
let i = 0; let total = 0;
while i < ${N} { send echo, i; let m = receive; let total = total + m; let i = i + 1; }
return total;`,
    ),
    async () => {
      let main: FloorActor | null = null;
      const echo = floorSpawn(async (self) => {
        for (let i = 0; i < N; i++) {
          const m = await floorReceive(self);
          floorSend(main!, m);
        }
        return null;
      });
      const parent = floorSpawn(async (self) => {
        let got = 0;
        for (let i = 0; i < N; i++) {
          floorSend(echo.actor, i);
          got += (await floorReceive(self)) as number;
        }
        return got;
      });
      main = parent.actor;
      await Promise.all([echo.done, parent.done]);
    },
    2 * N,
    { warmup: 5, samples: 21 },
  );
  peers.push(
    row('ping-pong between two processes (µs per message)', ping.ours, floorName, ping.floor,
      `${N.toLocaleString('en')} round trips per sample; each message wakes the other process`),
  );

  // Memory per live process: 100,000 processes blocked in receive.
  const live = 100_000;
  const bundle = await compile(`let i = 0; while i < ${live} { spawn turn() { return receive; }; let i = i + 1; } return null;`);
  global.gc?.();
  const before = process.memoryUsage().heapUsed;
  const vm = new VM(bundle, host, { maxSteps: 0 });
  await vm.run();
  global.gc?.();
  const perProcess = (process.memoryUsage().heapUsed - before) / live;
  if (vm.inspectProcesses().length !== live + 1) throw new Error('not every process is alive');
  global.gc?.();
  const beforeFloor = process.memoryUsage().heapUsed;
  const floor = Array.from({ length: live }, () => {
    const a = floorSpawn(async (self) => floorReceive(self));
    return a;
  });
  global.gc?.();
  const floorPer = (process.memoryUsage().heapUsed - beforeFloor) / live;
  for (const a of floor) floorSend(a.actor, null);
  await Promise.all(floor.map((a) => a.done));
  peers.push(
    row(
      `memory per live process, ${live.toLocaleString('en')} blocked in receive (bytes)`,
      quantity(perProcess, 'B'),
      'JS floor: async function suspended in receive + mailbox',
      quantity(floorPer, 'B'),
      'heap growth after a full GC, divided by the number of processes; a Turn process also holds its own memory map, context tiers and stack',
    ),
  );
  return { paper: inSection(PAPER_SECTION, paper), peers: inSection(PEER_SECTION, peers) };
}
