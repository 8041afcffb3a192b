// The token summary a run ends with on standard error (docs/observability.md, *Costs*): per model,
// the requests sent and their prompt (cached) and completion tokens, and with a price table
// (`--prices FILE`, else $TURN_PRICES) what they cost. Only when a real model was asked: the mock
// and script replies cost nothing. With --json it is one JSON line, `{"tokens": ...}`.
import { isRealModel, readPriceTable, summaryLines, tokenSummary, PriceTableError, type ModelTokens, type PriceTable } from '../runtime/index.js';
import { UsageError, err } from './usage.js';

/** The price table the flags or $TURN_PRICES name, read before the run starts. Throws UsageError. */
export function priceTableFrom(file: string | undefined, env: NodeJS.ProcessEnv = process.env): PriceTable | undefined {
  const given = file ?? (env.TURN_PRICES?.trim() || undefined);
  if (given === undefined) return undefined;
  try {
    return readPriceTable(given);
  } catch (e) {
    if (e instanceof PriceTableError) throw new UsageError(e.message);
    throw e;
  }
}

/** Prints the run's token summary when it asked a real model. */
export function printTokenSummary(tokens: ModelTokens[], prices: PriceTable | undefined, json: boolean): void {
  const real = tokens.filter((t) => isRealModel(t.model) && t.calls + t.failed > 0);
  if (real.length === 0) return;
  const summary = tokenSummary(real, prices);
  if (json) err(JSON.stringify({ tokens: summary }));
  else for (const line of summaryLines(summary)) err(`turn: ${line}`);
}
