// What an MCP server's notifications may put into the run's events (the trace, the panel): a
// server chooses how many it sends and how long they are, so each text is cut to NOTICE_TEXT_MAX
// characters and each server's notifications pass a token bucket (NOTICE_BURST at once, then
// NOTICE_PER_SECOND); the ones held back are counted and the next that passes says how many
// (`dropped`). A server flooding progress messages once wrote 365 MB of trace in 45 s.
import { nowMs } from '../monotonic.js';

/** The most characters of a server-supplied text (a progress message, a log message's data) in an event. */
export const NOTICE_TEXT_MAX = 1024;
/** Notifications of one server that pass at once... */
export const NOTICE_BURST = 32;
/** ...and how many more pass each second after that. */
export const NOTICE_PER_SECOND = 8;

/** `text` cut to NOTICE_TEXT_MAX characters, saying how much was cut. */
export function clipText(text: string): string {
  if (text.length <= NOTICE_TEXT_MAX) return text;
  return `${text.slice(0, NOTICE_TEXT_MAX)}… (${(text.length - NOTICE_TEXT_MAX).toLocaleString('en-US')} more characters)`;
}

/**
 * A log message's data for an event: a string clipped; a number, boolean or null as it is; a map
 * or list as it is when its JSON is short, else its JSON text clipped. The data has passed the
 * transport's byte bound but not the depth bound, so a value too deep to write is named, not written.
 */
export function clipData(data: unknown): unknown {
  if (typeof data === 'string') return clipText(data);
  if (data === null || typeof data !== 'object') return data;
  let json: string;
  try {
    json = JSON.stringify(data);
  } catch {
    return '(a value too deeply nested to show)';
  }
  return json.length <= NOTICE_TEXT_MAX ? data : clipText(json);
}

/** A token bucket: `take()` says whether one more notification passes now, and how many were held back before it. */
export class NoticeBucket {
  private tokens: number;
  private last: number;
  private held = 0;

  constructor(
    private readonly burst = NOTICE_BURST,
    private readonly perSecond = NOTICE_PER_SECOND,
    private readonly now: () => number = nowMs,
  ) {
    this.tokens = burst;
    this.last = now();
  }

  take(): { pass: true; dropped: number } | { pass: false } {
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) / 1000) * this.perSecond);
    this.last = t;
    if (this.tokens < 1) {
      this.held++;
      return { pass: false };
    }
    this.tokens -= 1;
    const dropped = this.held;
    this.held = 0;
    return { pass: true, dropped };
  }

  /** How many were held back since the last that passed (and forgets them): what no later event will say. */
  flush(): number {
    const dropped = this.held;
    this.held = 0;
    return dropped;
  }
}
