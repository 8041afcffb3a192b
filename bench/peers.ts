// The tools users would pick instead, measured in the same run on the same inputs:
// - typed output: our Ajv-compiled validator against zod (what the Vercel AI SDK's `generateObject`
//   validates with), on the same replies, valid and invalid;
// - checkpointing: our RunStore snapshot save + load against LangGraph.js's SQLite checkpointer
//   (`@langchain/langgraph-checkpoint-sqlite`) put + getTuple of the same agent state, in time and
//   in bytes, on the same disk;
// - the VM's arithmetic loop against the same loop in plain JavaScript (bench/vm-loop.ts).
// The actor floor (an async function per actor with an array mailbox) is in bench/actors.ts.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { z } from 'zod';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import type { Checkpoint } from '@langchain/langgraph';
import { issues, validatorFor } from '../runtime/infer/validate.js';
import { openStoreFile } from '../runtime/store/open.js';
import { decodeSnapshot, encodeSnapshot, type SnapshotData } from '../runtime/store/serialize.js';
import { measurePair, perOp, quantity, row, type Row } from './harness.js';
import { N, REVIEW_SCHEMA, replies } from './schema-validation.js';
import { ENTRIES, agent, asJson } from './store.js';

// ---------------------------------------------------------------------------------------------
// Typed output: Ajv (ours) against zod

/** The zod schema of the same Review type (strict objects: no extra keys, like ours). */
const Tag = z.strictObject({ name: z.string(), weight: z.number() });
export const ReviewZod = z.strictObject({
  ok: z.boolean(),
  score: z.number(),
  mood: z.enum(['happy', 'sad']),
  tags: z.array(Tag),
  main: Tag,
});

/** Replies a model gets wrong, one defect each, in five kinds. */
export function invalidReplies(): unknown[] {
  return (replies() as Record<string, unknown>[]).map((r, i) => {
    const x: Record<string, unknown> = { ...r };
    switch (i % 5) {
      case 0:
        x.score = 'high'; // wrong type
        break;
      case 1:
        delete x.main; // missing field
        break;
      case 2:
        x.extra = true; // unknown field
        break;
      case 3:
        x.mood = 'angry'; // not in the enum
        break;
      case 4:
        x.tags = [{ name: 'api', weight: null }]; // wrong type, nested
        break;
    }
    return x;
  });
}

async function typedOutputRows(): Promise<Row[]> {
  const valid = replies();
  const invalid = invalidReplies();
  validatorFor(REVIEW_SCHEMA);
  let found = 0;
  const validPair = await measurePair(
    () => {
      for (let i = 0; i < N; i++) if (issues(REVIEW_SCHEMA, valid[i], '/value') !== null) found++;
    },
    () => {
      for (let i = 0; i < N; i++) if (!ReviewZod.safeParse(valid[i]).success) found++;
    },
    { warmup: 5, samples: 15 },
  );
  if (found !== 0) throw new Error('a valid reply was rejected');
  // Invalid: both must reject every reply and say why (ours: issues with paths; zod: error.issues).
  let messages = 0;
  const invalidPair = await measurePair(
    () => {
      for (let i = 0; i < N; i++) {
        const found = issues(REVIEW_SCHEMA, invalid[i], '/value');
        if (found === null) throw new Error('an invalid reply was accepted (ours)');
        messages += found.length;
      }
    },
    () => {
      for (let i = 0; i < N; i++) {
        const r = ReviewZod.safeParse(invalid[i]);
        if (r.success) throw new Error('an invalid reply was accepted (zod)');
        messages += r.error.issues.length;
      }
    },
    { warmup: 5, samples: 15 },
  );
  if (messages === 0) throw new Error('unreachable');
  return [
    row('typed output: validate a valid reply (µs; nested struct)', perOp(validPair.ours, N), 'zod 4 safeParse (Vercel AI SDK generateObject)', perOp(validPair.anchor, N),
      `same ${N.toLocaleString('en')} reply objects for both; ours: Ajv 2020 compiled once, strict, allErrors`),
    row('typed output: reject an invalid reply with its issues (µs)', perOp(invalidPair.ours, N), 'zod 4 safeParse + error.issues', perOp(invalidPair.anchor, N),
      'five kinds of defect in turn: wrong type, missing field, unknown field, value not in the enum, wrong type in a nested list'),
  ];
}

// ---------------------------------------------------------------------------------------------
// Checkpointing: RunStore snapshot against LangGraph's SqliteSaver

/** The same agent as bench/store.ts, as LangGraph channels (JSON-compatible values). */
function asChannels(data: SnapshotData): Record<string, unknown> {
  const json = asJson(data) as { scheduler: unknown; processes: Record<string, unknown>[] };
  const p = json.processes[0];
  return {
    memory: p.memory,
    stack: p.stack,
    mailbox: p.mailbox,
    context: p.context,
    frames: p.state,
    values: p.values,
    scheduler: json.scheduler,
  };
}

let nextId = 1;
/** Checkpoint ids must sort by time (LangGraph uses uuid6): a counter in uuid form does. */
function checkpointId(): string {
  return `00000000-0000-6000-8000-${String(nextId++).padStart(12, '0')}`;
}

function checkpoint(channels: Record<string, unknown>): Checkpoint {
  const versions = Object.fromEntries(Object.keys(channels).map((k) => [k, 1]));
  return { v: 4, id: checkpointId(), ts: new Date().toISOString(), channel_values: channels, channel_versions: versions, versions_seen: {} };
}

async function checkpointRows(): Promise<Row[]> {
  const rows: Row[] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-bench-peers-'));
  const store = openStoreFile(path.join(dir, 'turn.db'));
  const shippedDb = new Database(path.join(dir, 'langgraph.db'));
  const fullDb = new Database(path.join(dir, 'langgraph-full.db'));
  try {
    const data = agent();
    const channels = asChannels(data);
    const thread = { configurable: { thread_id: 'bench', checkpoint_ns: '' } };
    const run = store.createRun({ entry: 'bench.tn', bytecodeHash: data.bytecodeHash, semanticsVersion: data.semanticsVersion });

    const shipped = new SqliteSaver(shippedDb);
    const full = new SqliteSaver(fullDb);
    fullDb.pragma('synchronous = FULL'); // per connection; SqliteSaver's own setup only sets WAL
    let seq = 0;
    const opts = { warmup: 5, samples: 21 };
    const ours = () => {
      store.putSnapshot(run.id, ++seq, encodeSnapshot(data));
      const back = decodeSnapshot(store.latestSnapshot(run.id)!.bytes);
      if (back.processes[0].memory.size !== ENTRIES) throw new Error('snapshot lost entries');
    };
    let step = 0;
    const langgraph = (saver: SqliteSaver) => async () => {
      await saver.put(thread, checkpoint(channels), { source: 'loop', step: ++step, parents: {} });
      const back = await saver.getTuple(thread);
      const memory = back?.checkpoint.channel_values.memory as Record<string, unknown> | undefined;
      if (!memory || Object.keys(memory).length !== ENTRIES) throw new Error('LangGraph checkpoint lost entries');
    };
    const sameDurability = await measurePair(ours, langgraph(full), opts);
    const asShipped = await measurePair(ours, langgraph(shipped), opts);
    // Read after the first put: SqliteSaver switches to WAL there, and WAL takes the build's default.
    const syncName = (db: Database.Database) => ['OFF', 'NORMAL', 'FULL', 'EXTRA'][Number(db.pragma('synchronous', { simple: true }))] ?? '?';
    const shippedSync = syncName(shippedDb);
    const fullSync = syncName(fullDb);
    rows.push(
      row(
        `checkpoint save + load, ${ENTRIES.toLocaleString('en')}-entry agent, same durability (ms)`,
        sameDurability.ours,
        `LangGraph SqliteSaver put + getTuple, synchronous=${fullSync}`,
        sameDurability.anchor,
        'both: SQLite WAL, an fsync on every commit; ours: encodeSnapshot + putSnapshot + latestSnapshot + decodeSnapshot; LangGraph: put (JsonPlusSerializer) + getTuple of the latest checkpoint of the thread',
      ),
      row(
        'checkpoint save + load, LangGraph as shipped (ms)',
        asShipped.ours,
        `LangGraph SqliteSaver put + getTuple, synchronous=${shippedSync} (its default)`,
        asShipped.anchor,
        shippedSync === 'FULL'
          ? 'SqliteSaver as shipped commits with synchronous=FULL here'
          : `SqliteSaver opens WAL and keeps better-sqlite3's default synchronous=${shippedSync}: no fsync per commit, so a power loss can take its last checkpoints; ours keeps FULL`,
      ),
    );

    // Bytes: what each stores for the same state.
    const ourBytes = store.latestSnapshot(run.id)!.bytes.length;
    const lgRow = fullDb
      .prepare('SELECT length(checkpoint) AS c, length(metadata) AS m FROM checkpoints ORDER BY checkpoint_id DESC LIMIT 1')
      .get() as { c: number; m: number };
    rows.push(
      row(
        'checkpoint size of the same agent state (KB stored)',
        quantity(ourBytes / 1000, 'KB'),
        'LangGraph SqliteSaver: checkpoint + metadata blobs',
        quantity((lgRow.c + lgRow.m) / 1000, 'KB'),
        `ours: the snapshot blob (binary, names written once, a large map's keys and string values as one text: format 3, compressed with Brotli only above 1 MB); LangGraph: JSON text (${(lgRow.c / 1000).toFixed(1)} KB checkpoint + ${lgRow.m} B metadata)`,
      ),
    );

    // Serialization alone, in memory.
    const serde = (full as unknown as { serde: { dumpsTyped(x: unknown): Promise<[string, Uint8Array]>; loadsTyped(t: string, b: Uint8Array): Promise<unknown> } }).serde;
    const cp = checkpoint(channels);
    const serdePair = await measurePair(
      () => decodeSnapshot(encodeSnapshot(data)),
      async () => {
        const [type, bytes] = await serde.dumpsTyped(cp);
        await serde.loadsTyped(type, bytes);
      },
      { warmup: 5, samples: 21 },
    );
    rows.push(row('checkpoint encode + decode in memory (ms)', serdePair.ours, 'LangGraph JsonPlusSerializer dumpsTyped + loadsTyped', serdePair.anchor));
  } finally {
    store.close();
    shippedDb.close();
    fullDb.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

export async function peerBenchmarks(): Promise<Row[]> {
  return [...(await typedOutputRows()), ...(await checkpointRows())];
}
