// The calibration file `turn calibrate` writes and a run reads (docs/inference.md, *Calibration*):
// JSON, one map per (model, confidence source), each with what it was fitted on and how well the
// source did before and after it (the reliability tables a diagram is drawn from). A map's `id` is
// the SHA-256 of what it does — model, source, method and breakpoints — so the id a run journals
// names exactly the map that turned a raw confidence into the calibrated one. The file is read as
// hostile input: bounded in bytes and counts, every number checked, and an id that does not match
// its map's content refused (a map edited by hand is not the map that was measured).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '../fs-atomic.js';
import { sha256Hex } from '../hash.js';
import { identityKey, type ModelIdentity } from './identity.js';
import type { IsotonicMap } from './isotonic.js';
import type { Metrics, ReliabilityBin } from './metrics.js';

export const CALIBRATION_FORMAT = 'turn-calibration';
export const CALIBRATION_VERSION = 1;
/** The default calibration file, relative to the run's working directory. */
export const DEFAULT_CALIBRATION_FILE = '.turn/calibration.json';
export const MAX_CALIBRATION_BYTES = 4 * 1024 * 1024;
export const MAX_MAPS = 256;
export const MAX_POINTS = 2048;

/** The sources a map may be fitted for (runtime/infer/confidence.ts). */
export const SOURCES = ['agreement', 'logprobs', 'reported', 'unreported'] as const;
export type CalibratedSource = (typeof SOURCES)[number];

export interface CalibrationMap extends IsotonicMap {
  id: string;
  model: ModelIdentity;
  source: CalibratedSource;
  /** what it was fitted on: cases, the dataset's name and SHA-256, when */
  fitted: { cases: number; dataset?: string; datasetSha256?: string; at?: string };
  /** the source's figures before and after the map: on held-out cases when there were some, else on the fitted ones */
  evaluation?: { on: 'held-out' | 'fitted'; before: Metrics; after: Metrics; reliability: { before: ReliabilityBin[]; after: ReliabilityBin[] } };
}

export interface CalibrationFile {
  format: typeof CALIBRATION_FORMAT;
  version: number;
  maps: CalibrationMap[];
}

/** A calibration file that cannot be used, with the file (and the map) it is about. */
export class CalibrationFileError extends Error {}

/** The id of a map: what it does, hashed. */
export function mapId(map: Pick<CalibrationMap, 'model' | 'source' | 'method' | 'points'>): string {
  return sha256Hex(JSON.stringify([identityKey(map.model), map.source, map.method, map.points])).slice(0, 16);
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const unit = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= 1;

/** Checks a parsed calibration file; throws CalibrationFileError naming the file and the map. */
export function checkCalibration(data: unknown, file: string): CalibrationFile {
  const bad = (where: string, what: string): never => {
    throw new CalibrationFileError(`${file}: ${where}${where ? ': ' : ''}${what}`);
  };
  if (!isObject(data)) bad('', 'not a calibration file (a JSON object is expected)');
  const d = data as Record<string, unknown>;
  if (d.format !== CALIBRATION_FORMAT) bad('format', `must be "${CALIBRATION_FORMAT}"`);
  if (d.version !== CALIBRATION_VERSION) bad('version', `must be ${CALIBRATION_VERSION} (this Turn reads version ${CALIBRATION_VERSION}), got ${JSON.stringify(d.version)}`);
  if (!Array.isArray(d.maps)) bad('maps', 'must be a list');
  const maps = d.maps as unknown[];
  if (maps.length > MAX_MAPS) bad('maps', `has ${maps.length} maps, more than ${MAX_MAPS}`);
  const seen = new Set<string>();
  return {
    format: CALIBRATION_FORMAT,
    version: CALIBRATION_VERSION,
    maps: maps.map((m, i) => {
      const at = `maps[${i}]`;
      if (!isObject(m)) return bad(at, 'must be an object');
      const model = m.model;
      if (!isObject(model) || typeof model.provider !== 'string' || typeof model.model !== 'string' || (model.sha256 !== undefined && (typeof model.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(model.sha256)))) {
        return bad(`${at}.model`, 'must be {"provider": string, "model": string, "sha256"?: 64 hex digits}');
      }
      if (!(SOURCES as readonly unknown[]).includes(m.source)) bad(`${at}.source`, `must be one of ${SOURCES.join(', ')}`);
      if (m.method !== 'isotonic') bad(`${at}.method`, 'must be "isotonic"');
      const points = m.points;
      if (!Array.isArray(points) || points.length === 0 || points.length > MAX_POINTS) bad(`${at}.points`, `must be a list of 1 to ${MAX_POINTS} [raw, calibrated] pairs`);
      let last: [number, number] | undefined;
      for (const [j, p] of (points as unknown[]).entries()) {
        if (!Array.isArray(p) || p.length !== 2 || !unit(p[0]) || !unit(p[1])) bad(`${at}.points[${j}]`, 'must be [raw, calibrated], both numbers from 0 to 1');
        const [x, y] = p as [number, number];
        if (last && (x < last[0] || y < last[1])) bad(`${at}.points[${j}]`, 'the breakpoints must go up in both raw and calibrated value (a map is monotone)');
        last = [x, y];
      }
      const identity: ModelIdentity = { provider: model.provider, model: model.model, ...(typeof model.sha256 === 'string' ? { sha256: model.sha256 } : {}) };
      const map = { model: identity, source: m.source as CalibratedSource, method: 'isotonic' as const, points: points as [number, number][] };
      const id = mapId(map);
      if (m.id !== id) bad(`${at}.id`, `does not match the map's content (expected ${id}): a map changed after it was fitted is not used`);
      const key = `${identityKey(identity)} ${map.source}`;
      if (seen.has(key)) bad(at, `a second map for ${map.source} of the same model`);
      seen.add(key);
      const fitted = isObject(m.fitted) && typeof m.fitted.cases === 'number' ? (m.fitted as CalibrationMap['fitted']) : { cases: 0 };
      return { ...map, id, fitted, ...(isObject(m.evaluation) ? { evaluation: m.evaluation as CalibrationMap['evaluation'] } : {}) };
    }),
  };
}

/** Reads a calibration file; null when it does not exist. Throws CalibrationFileError. */
export function readCalibration(file: string): CalibrationFile | null {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new CalibrationFileError(`${file}: cannot be read: ${(e as Error).message}`);
  }
  let text: string;
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new CalibrationFileError(`${file}: not a file`);
    if (st.size > MAX_CALIBRATION_BYTES) throw new CalibrationFileError(`${file}: ${st.size} bytes, more than a calibration file may have (${MAX_CALIBRATION_BYTES})`);
    const buf = Buffer.alloc(st.size);
    let read = 0;
    while (read < st.size) {
      const n = fs.readSync(fd, buf, read, st.size - read, read);
      if (n === 0) break;
      read += n;
    }
    text = buf.subarray(0, read).toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new CalibrationFileError(`${file}: not valid JSON: ${(e as Error).message}`);
  }
  return checkCalibration(data, file);
}

/**
 * Writes `maps` into `file`, replacing the maps of the same model and source and keeping the
 * others (one file can calibrate several models). The file is replaced whole, atomically.
 */
export function writeCalibration(file: string, maps: CalibrationMap[]): CalibrationFile {
  const existing = readCalibration(file);
  const replaced = new Set(maps.map((m) => `${identityKey(m.model)} ${m.source}`));
  const kept = (existing?.maps ?? []).filter((m) => !replaced.has(`${identityKey(m.model)} ${m.source}`));
  const out: CalibrationFile = { format: CALIBRATION_FORMAT, version: CALIBRATION_VERSION, maps: [...kept, ...maps] };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  writeFileAtomic(file, JSON.stringify(out, null, 1) + '\n');
  return out;
}
