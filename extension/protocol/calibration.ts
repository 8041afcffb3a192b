// The run panel's calibration messages (docs/editor.md, *Calibration in the panel*), beside the
// panel protocol (panel.ts) that routes them: where an inference's confidence was calibrated, the
// webview asks for that map by its id (`calibrationMap`, webview → host) when it shows the attempt,
// and the host answers with what the calibration file holds about it — the source, the model, what
// it was fitted on, the figures before and after, the reliability tables the diagram is drawn from
// and the breakpoints — or why it cannot (`calibrationMap`, host → webview). The data is asked for
// only when shown, never sent with every update. No `vscode` import and no DOM (both sides bundle it).

/** A reliability bin: [from, to) of confidence, its cases, their mean confidence and accuracy (null when empty). */
export interface ReliabilityBinView {
  from: number;
  to: number;
  cases: number;
  confidence: number | null;
  accuracy: number | null;
}

export interface CalibrationMetricsView {
  cases: number;
  accuracy: number;
  ece: number;
  brier: number;
  auroc: number | null;
}

export interface CalibrationMapView {
  id: string;
  source: string;
  /** the model it was fitted on, as `turn calibrate` prints it */
  model: string;
  /** the calibration file it was read from */
  file: string;
  fitted: { cases: number; dataset: string | null };
  /** what the figures and the tables are measured on; null when the file holds no evaluation */
  on: 'held-out' | 'fitted' | null;
  before: CalibrationMetricsView | null;
  after: CalibrationMetricsView | null;
  reliability: { before: ReliabilityBinView[]; after: ReliabilityBinView[] } | null;
  /** the map's breakpoints, [raw, calibrated] */
  points: [number, number][];
}

/** webview → host: the map of this id, please */
export interface CalibrationMapRequest {
  type: 'calibrationMap';
  v: 1;
  map: string;
}

/** host → webview: the map, or (view null) why it cannot be shown */
export interface CalibrationMapReply {
  type: 'calibrationMap';
  v: 1;
  map: string;
  view: CalibrationMapView | null;
  message: string | null;
}

/** A map's id as `runtime/calibration/file.ts` makes it: 16 hex digits (a longer or other string is not one). */
export const isMapId = (v: unknown): v is string => typeof v === 'string' && /^[0-9a-f]{16}$/.test(v);

/** At most this many bins and breakpoints cross (the file allows 2,048 breakpoints; `turn calibrate` writes 10 bins). */
export const MAX_BINS = 100;
export const MAX_POINTS = 2048;

const unit = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= 1;
const count = (v: unknown): boolean => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const short = (v: unknown, max = 4096): boolean => typeof v === 'string' && v.length <= max;

function bin(v: unknown): boolean {
  return isObj(v) && unit(v.from) && unit(v.to) && count(v.cases) && (v.confidence === null || unit(v.confidence)) && (v.accuracy === null || unit(v.accuracy));
}

function metrics(v: unknown): boolean {
  return v === null || (isObj(v) && count(v.cases) && unit(v.accuracy) && unit(v.ece) && unit(v.brier) && (v.auroc === null || unit(v.auroc)));
}

const bins = (v: unknown): boolean => Array.isArray(v) && v.length <= MAX_BINS && v.every(bin);

export function isCalibrationMapView(v: unknown): v is CalibrationMapView {
  if (!isObj(v) || !isMapId(v.id) || !short(v.source, 40) || !short(v.model) || !short(v.file)) return false;
  const f = v.fitted;
  if (!isObj(f) || !count(f.cases) || !(f.dataset === null || short(f.dataset))) return false;
  if (!(v.on === null || v.on === 'held-out' || v.on === 'fitted') || !metrics(v.before) || !metrics(v.after)) return false;
  const r = v.reliability;
  if (!(r === null || (isObj(r) && bins(r.before) && bins(r.after)))) return false;
  return Array.isArray(v.points) && v.points.length <= MAX_POINTS && v.points.every((p) => Array.isArray(p) && p.length === 2 && unit(p[0]) && unit(p[1]));
}

export function isCalibrationMapRequest(m: Record<string, unknown>): boolean {
  return isMapId(m.map);
}

export function isCalibrationMapReply(m: Record<string, unknown>): boolean {
  return isMapId(m.map) && (m.view === null ? short(m.message) : isCalibrationMapView(m.view) && (m.view).id === m.map && m.message === null);
}
