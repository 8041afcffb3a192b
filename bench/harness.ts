// A small benchmark harness: warm-up, several samples, median and spread. Every figure is reported
// beside an anchor measured in the same process and run, as a ratio, because absolute times on a
// shared 2-core machine are noise; nothing here passes or fails.
import * as os from 'node:os';

export interface Sample {
  /** in `unit` (milliseconds unless a unit is given) */
  medianMs: number;
  minMs: number;
  maxMs: number;
  samples: number;
  unit?: string;
}

/** A whole-run sample divided into a per-operation figure, in microseconds. */
export function perOp(s: Sample, ops: number): Sample {
  const us = (ms: number) => (ms * 1000) / ops;
  return { medianMs: us(s.medianMs), minMs: us(s.minMs), maxMs: us(s.maxMs), samples: s.samples, unit: 'µs' };
}

/** A single measured quantity (bytes, a count) shown in the table like a sample. */
export function quantity(value: number, unit: string): Sample {
  return { medianMs: value, minMs: value, maxMs: value, samples: 1, unit };
}

export async function measure(fn: () => unknown | Promise<unknown>, options: { warmup?: number; samples?: number } = {}): Promise<Sample> {
  const warmup = options.warmup ?? 3;
  const samples = options.samples ?? 9;
  for (let i = 0; i < warmup; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const start = process.hrtime.bigint();
    await fn();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  return { medianMs: times[Math.floor(times.length / 2)], minMs: times[0], maxMs: times[times.length - 1], samples };
}

export interface Row {
  benchmark: string;
  ours: Sample;
  anchor: Sample;
  anchorName: string;
  /** ours / anchor, by median */
  ratio: number;
  note?: string;
}

export function row(benchmark: string, ours: Sample, anchorName: string, anchor: Sample, note?: string): Row {
  return { benchmark, ours, anchor, anchorName, ratio: ours.medianMs / anchor.medianMs, note };
}

export function machine(): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  return `${cpu} × ${os.cpus().length}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${os.platform()} ${os.arch()}`;
}

const fmt = (s: Sample) =>
  s.samples === 1 ? `${s.medianMs.toFixed(2)} ${s.unit ?? 'ms'}` : `${s.medianMs.toFixed(2)} ${s.unit ?? 'ms'} (${s.minMs.toFixed(2)}–${s.maxMs.toFixed(2)})`;

export function markdownTable(rows: Row[]): string {
  const lines = [
    '| benchmark | ours: median (min–max) | anchor | anchor: median (min–max) | ratio |',
    '| --- | --- | --- | --- | --- |',
    ...rows.map((r) => `| ${r.benchmark} | ${fmt(r.ours)} | ${r.anchorName} | ${fmt(r.anchor)} | ${r.ratio.toFixed(1)}× |`),
  ];
  const notes = rows.filter((r) => r.note).map((r) => `- ${r.benchmark}: ${r.note}`);
  return lines.join('\n') + (notes.length ? '\n\n' + notes.join('\n') : '');
}
