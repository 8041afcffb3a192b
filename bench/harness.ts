// A small benchmark harness: warm-up, several samples, median and spread. Every figure is reported
// beside an anchor measured in the same process and run, as a ratio, because absolute times on a
// shared 2-core machine are noise; nothing here passes or fails. Rows may also carry Turn's
// published figure (a constant from the paper, Apple M4) and, for scaling series, a verdict fitted
// on the measured points. See docs/performance.md.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
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

/** A figure published in Turn's paper (measured on an Apple M4): a constant, never measured here. */
export interface Paper {
  /** as the paper states it, e.g. "2–3 µs" */
  text: string;
  /** the number compared with ours (same unit as `ours`), when the paper gives one */
  value?: number;
}

/**
 * Ours and its anchor measured in alternation (a, b, b, a, a, b ...) after both warm up, so that a
 * burst of load from elsewhere on a shared machine falls on both sides rather than on one.
 */
export async function measurePair(
  ours: () => unknown | Promise<unknown>,
  anchor: () => unknown | Promise<unknown>,
  options: { warmup?: number; samples?: number } = {},
): Promise<{ ours: Sample; anchor: Sample }> {
  const warmup = options.warmup ?? 3;
  const samples = options.samples ?? 9;
  for (let i = 0; i < warmup; i++) {
    await ours();
    await anchor();
  }
  const a: number[] = [];
  const b: number[] = [];
  const time = async (fn: () => unknown | Promise<unknown>, into: number[]) => {
    const start = process.hrtime.bigint();
    await fn();
    into.push(Number(process.hrtime.bigint() - start) / 1e6);
  };
  for (let i = 0; i < samples; i++) {
    if (i % 2 === 0) {
      await time(ours, a);
      await time(anchor, b);
    } else {
      await time(anchor, b);
      await time(ours, a);
    }
  }
  return { ours: summarize(a), anchor: summarize(b) };
}

/** Median, min and max of raw times (ms). */
export function summarize(times: number[]): Sample {
  const t = times.slice().sort((x, y) => x - y);
  return { medianMs: t[Math.floor(t.length / 2)], minMs: t[0], maxMs: t[t.length - 1], samples: t.length };
}

export interface Row {
  /** the part of the report the row belongs to (see SECTIONS) */
  section?: string;
  benchmark: string;
  ours: Sample;
  anchor: Sample;
  anchorName: string;
  /** ours / anchor, by median */
  ratio: number;
  note?: string;
  /** the paper's figure for the same thing, shown beside ours */
  paper?: Paper;
  /** ours / paper.value, by median */
  paperRatio?: number;
  /** scaling rows: flat, sub-linear, linear or worse, from the measured points */
  verdict?: string;
}

export function row(benchmark: string, ours: Sample, anchorName: string, anchor: Sample, note?: string): Row {
  return { benchmark, ours, anchor, anchorName, ratio: ours.medianMs / anchor.medianMs, note };
}

/** Attaches the paper's figure to a row (and ours ÷ paper when the paper gives a number). */
export function withPaper(r: Row, text: string, value?: number): Row {
  r.paper = value === undefined ? { text } : { text, value };
  if (value !== undefined) r.paperRatio = r.ours.medianMs / value;
  return r;
}

export function inSection(section: string, rows: Row[]): Row[] {
  for (const r of rows) r.section ??= section;
  return rows;
}

/** One point of a scaling series: the per-operation cost at size n. */
export interface Point {
  n: number;
  perOp: number;
}

/**
 * The exponent k of cost-per-operation ∝ n^k, fitted by least squares on log–log over the points.
 * k ≈ 0: each operation costs the same at every size (the total grows linearly); k ≈ 1: each
 * operation costs in proportion to the size (the total grows quadratically).
 */
export function growthExponent(points: Point[]): number {
  const xs = points.map((p) => Math.log(p.n));
  const ys = points.map((p) => Math.log(p.perOp));
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let num = 0;
  let den = 0;
  for (let i = 0; i < xs.length; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

/**
 * The verdict on how the per-operation cost grows with n. On a real machine even a constant-time
 * structure costs more per operation at 100K than at 1K (caches, garbage collection), so when a
 * floor doing the same work in constant time was measured at the same sizes in the same run, the
 * verdict is on the exponent in excess of the floor's: e = k(ours) − max(0, k(floor)). "flat" when
 * e < 0.2 (a 100× larger size costs at most ~2.5× more per operation than the floor's growth),
 * "sub-linear" when e < 0.8, "linear" when e < 1.2 (each operation costs in proportion to the
 * size: the whole grows quadratically), else "worse than linear".
 */
export function verdict(points: Point[], floor?: Point[]): { word: string; exponent: number; excess: number; growth: number } {
  const k = growthExponent(points);
  const excess = floor ? k - Math.max(0, growthExponent(floor)) : k;
  const growth = points[points.length - 1].perOp / points[0].perOp;
  const word = excess < 0.2 ? 'flat' : excess < 0.8 ? 'sub-linear' : excess < 1.2 ? 'linear' : 'worse than linear';
  return { word, exponent: k, excess, growth };
}

/** "flat (per op 100K ÷ 1K = 1.9×, ∝ n^0.14; floor n^0.41)" */
export function verdictText(points: Point[], floor?: Point[]): string {
  const v = verdict(points, floor);
  const size = (n: number) => (n >= 1000 ? `${n / 1000}K` : String(n));
  const floorPart = floor ? `; floor ∝ n^${growthExponent(floor).toFixed(2)}` : '';
  return `${v.word} (per op ${size(points[points.length - 1].n)} ÷ ${size(points[0].n)} = ${v.growth.toFixed(2)}×, ∝ n^${v.exponent.toFixed(2)}${floorPart})`;
}

export function machine(): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  return `${cpu} × ${os.cpus().length}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${os.platform()} ${os.release()} ${os.arch()}`;
}

const num = (x: number) => {
  const a = Math.abs(x);
  return a === 0 ? '0' : a < 1 ? x.toPrecision(2) : a < 10 ? x.toFixed(2) : a < 100 ? x.toFixed(1) : x.toFixed(0);
};
const fmt = (s: Sample) =>
  s.samples === 1 ? `${num(s.medianMs)} ${s.unit ?? 'ms'}` : `${num(s.medianMs)} ${s.unit ?? 'ms'} (${num(s.minMs)}–${num(s.maxMs)})`;
const ratio = (x: number) => `${x >= 10 ? x.toFixed(0) : x.toFixed(2)}×`;

/**
 * One Markdown table: a bold line opens each section; every row shows our figure, its anchor or
 * peer measured in the same run, ours ÷ anchor, the paper's figure where it gives one, ours ÷
 * paper, and the scaling verdict where the row closes a series. Notes follow the table.
 */
export function markdownTable(rows: Row[]): string {
  const lines = [
    '| benchmark | ours: median (min–max) | anchor or peer (same run) | anchor: median (min–max) | ours ÷ anchor | paper (Apple M4) | ours ÷ paper | scaling verdict |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  let section: string | undefined;
  for (const r of rows) {
    if (r.section && r.section !== section) {
      section = r.section;
      lines.push(`| **${section}** | | | | | | | |`);
    }
    lines.push(
      `| ${r.benchmark} | ${fmt(r.ours)} | ${r.anchorName} | ${fmt(r.anchor)} | ${ratio(r.ratio)} | ${r.paper?.text ?? ''} | ${
        r.paperRatio !== undefined ? ratio(r.paperRatio) : ''
      } | ${r.verdict ?? ''} |`,
    );
  }
  const notes = rows.filter((r) => r.note).map((r) => `- ${r.benchmark}: ${r.note}`);
  return lines.join('\n') + (notes.length ? '\n\nNotes:\n\n' + notes.join('\n') : '');
}

/**
 * The harness's own cost of a whole-process sample (issue 45): starting a process from this (large)
 * Node process with `spawnSync`, waiting for it and reaping it — measured on `/bin/true`, which does
 * nothing, the same way the samples are taken. Subtracted from both sides of a start-up pair, it
 * leaves each program's own start; before, it added about 10 ms to both and squeezed their ratio.
 * Null where there is no `/bin/true` (the rows then keep the whole-process figures and say so).
 */
export function spawnCostProbe(): (() => number) | null {
  if (!fs.existsSync('/bin/true')) return null;
  return () => {
    const start = process.hrtime.bigint();
    const r = spawnSync('/bin/true', [], { stdio: 'ignore' });
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (r.status !== 0) throw new Error('/bin/true failed');
    return ms;
  };
}

/** A sample less a constant (a median of the harness's cost), never below 0. */
export function minus(s: Sample, ms: number): Sample {
  const less = (x: number) => Math.max(0, x - ms);
  return { ...s, medianMs: less(s.medianMs), minMs: less(s.minMs), maxMs: less(s.maxMs) };
}
