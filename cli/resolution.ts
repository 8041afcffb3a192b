// The arguments of `turn resolve RUN STEP`, the same for a run in a store and a run on Restate.
import type { Settlement } from '../runtime/index.js';
import { UsageError } from './usage.js';

/**
 * What `turn resolve RUN STEP` decides: the step, exactly one of --ok JSON,
 * --error MESSAGE or --retry as the settlement, and how it reads in the confirmation.
 */
export function resolution(stepText: string, values: { ok?: string; error?: string; retry?: boolean }): { seq: number; settlement: Settlement; how: string } {
  const chosen = [values.ok !== undefined, values.error !== undefined, values.retry === true].filter(Boolean).length;
  if (chosen !== 1) throw new UsageError('`turn resolve RUN STEP` needs exactly one of --ok JSON, --error MESSAGE, --retry');
  const seq = Number(stepText);
  if (!Number.isInteger(seq) || seq < 1) throw new UsageError(`STEP must be a journal step number, got \`${stepText}\``);
  let settlement: Settlement;
  if (values.ok !== undefined) {
    try {
      settlement = { ok: JSON.parse(values.ok) as unknown };
    } catch (e) {
      throw new UsageError(`--ok needs JSON: ${(e as Error).message}`);
    }
  } else if (values.error !== undefined) settlement = { error: values.error };
  else settlement = { retry: true };
  return { seq, settlement, how: values.retry ? 'retry with the same idempotency key' : values.error !== undefined ? 'error' : 'ok' };
}
