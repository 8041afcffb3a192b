// The host side of the panel's reliability diagram (docs/editor.md, *Calibration in the panel*): a
// map the webview asks for by id is looked up in the calibration file the panel's runs use — the
// `turn.run.calibration` file of the run's options, else `.turn/calibration.json` in its folder,
// as `turn run` reads it — and sent as the view the diagram is drawn from. The file is read as the
// run reads it (runtime/calibration/file.ts: bounded, every number checked, ids matched to their
// maps), so a map found by its id is the map that calibrated the run's confidence.
import * as path from 'node:path';
import { DEFAULT_CALIBRATION_FILE, identityText, readCalibration, type CalibrationMap, type RunOptions } from '../../runtime/index.js';
import { MAX_BINS, type CalibrationMapView } from '../protocol/calibration.js';

/** The calibration file a run with `options` reads; null when it reads none. */
export function calibrationFileOf(options: Pick<RunOptions, 'cwd' | 'calibration'>): string | null {
  if (options.calibration === false) return null;
  return path.resolve(options.cwd ?? process.cwd(), options.calibration ?? DEFAULT_CALIBRATION_FILE);
}

/** The map `id` of the run's calibration file as the webview draws it, or why there is none (one line). */
export function calibrationMapView(options: Pick<RunOptions, 'cwd' | 'calibration'>, id: string): { view: CalibrationMapView | null; message: string | null } {
  const file = calibrationFileOf(options);
  if (file === null) return { view: null, message: `map ${id}: this panel's runs use no calibration file` };
  let maps: CalibrationMap[];
  try {
    maps = readCalibration(file)?.maps ?? [];
  } catch (e) {
    return { view: null, message: (e as Error).message };
  }
  const map = maps.find((m) => m.id === id);
  if (!map) return { view: null, message: `map ${id} is no longer in ${file} (it was fitted again or removed since the run)` };
  return { view: toView(map, file), message: null };
}

export function toView(map: CalibrationMap, file: string): CalibrationMapView {
  const ev = map.evaluation;
  // the evaluation is kept as the file has it: only well-formed tables are sent (the protocol checks each number)
  const table = ev && Array.isArray(ev.reliability?.before) && Array.isArray(ev.reliability?.after)
    ? { before: ev.reliability.before.slice(0, MAX_BINS), after: ev.reliability.after.slice(0, MAX_BINS) }
    : null;
  return {
    id: map.id,
    source: map.source,
    model: identityText(map.model),
    file,
    fitted: { cases: map.fitted.cases, dataset: typeof map.fitted.dataset === 'string' ? map.fitted.dataset : null },
    on: ev?.on === 'held-out' || ev?.on === 'fitted' ? ev.on : null,
    before: ev?.before ?? null,
    after: ev?.after ?? null,
    reliability: table,
    points: map.points,
  };
}
