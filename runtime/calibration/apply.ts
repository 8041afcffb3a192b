// A run's calibration (docs/inference.md, *Calibration*): the maps of the calibration file fitted on
// the run's own model, one per confidence source. The host applies them to each model reply as it
// arrives and puts the result on the reply (`reply.calibration`: source, raw, calibrated value, map
// id), so a durable run journals it and a replay binds the same value whatever the file says by
// then. A file whose maps are all for other models is refused with a warning: the run's confidences
// stay raw, as a map fitted on one model says nothing about another's.
import * as path from 'node:path';
import type { ConfidenceInfo } from '../infer/confidence.js';
import type { ReplyCalibration } from '../infer/types.js';
import { applyMap } from './isotonic.js';
import { CalibrationFileError, DEFAULT_CALIBRATION_FILE, readCalibration, type CalibrationMap } from './file.js';
import { identityText, modelIdentity, sameModel } from './identity.js';

export interface Calibrator {
  file: string;
  maps: CalibrationMap[];
  /** the calibration of one raw confidence, or undefined when its source has no map */
  calibrate(info: Pick<ConfidenceInfo, 'source' | 'value'>): ReplyCalibration | undefined;
}

export interface CalibrationSetup {
  calibrator?: Calibrator;
  /** warnings for the person running it (the CLI prints them as `turn: warning: ...`) */
  notes: string[];
}

/**
 * The calibration for a run of model `spec` in `cwd`. `file`: the run's calibration file (relative
 * to cwd), `false` for none, undefined for the default (DEFAULT_CALIBRATION_FILE, used when it
 * exists). A file named explicitly that cannot be used throws CalibrationFileError; the default
 * one that cannot be used is a warning.
 */
export async function calibrationFor(spec: string, cwd: string, file: string | false | undefined): Promise<CalibrationSetup> {
  if (file === false) return { notes: [] };
  const explicit = file !== undefined;
  const full = path.resolve(cwd, file ?? DEFAULT_CALIBRATION_FILE);
  let read;
  try {
    read = readCalibration(full);
    if (read === null && explicit) throw new CalibrationFileError(`${full}: no such calibration file`);
  } catch (e) {
    if (explicit || !(e instanceof CalibrationFileError)) throw e;
    return { notes: [`${e.message}; confidences are raw (not calibrated)`] };
  }
  if (!read || read.maps.length === 0) return { notes: [] };
  let identity;
  try {
    identity = await modelIdentity(spec, cwd);
  } catch (e) {
    return { notes: [`cannot identify the model ${spec} to calibrate it (${(e as Error).message}); confidences are raw (not calibrated)`] };
  }
  const mine = read.maps.filter((m) => sameModel(m.model, identity));
  // the mock model (every run's default) is not a model to calibrate: the default file stays quiet for it
  if (mine.length === 0 && !explicit && identity.provider === 'mock') return { notes: [] };
  if (mine.length === 0) {
    const others = [...new Set(read.maps.map((m) => identityText(m.model)))].slice(0, 5).join(', ');
    return {
      notes: [`the calibration file ${full} has maps for ${others}, not for this run's model ${identityText(identity)}: a map fitted on one model is never applied to another, so confidences are raw (not calibrated); run \`turn calibrate\` with this model`],
    };
  }
  const bySource = new Map(mine.map((m) => [m.source as string, m]));
  return {
    notes: [],
    calibrator: {
      file: full,
      maps: mine,
      calibrate: (info) => {
        const map = bySource.get(info.source);
        if (!map) return undefined;
        return { source: info.source, raw: info.value, value: applyMap(map, info.value), map: map.id };
      },
    },
  };
}
