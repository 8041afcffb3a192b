// The live line of `turn run` on a terminal: one line on standard error per `infer` waiting on its
// model — the process, the type, the tokens streamed so far and the time it has waited — redrawn
// as tokens arrive and every second, and gone once the reply is in. Nothing is drawn when standard
// error is not a terminal or with --json; program output (standard output) is written between
// redraws, so the two never mix on a line.
import type { RunEvent } from '../runtime/index.js';

interface Waiting {
  pid: number;
  type: string;
  since: number;
  tokens: number;
  attempt: number;
}

const REDRAW_MS = 100;

export class ProgressLine {
  private readonly waiting = new Map<string, Waiting>();
  private drawn = 0;
  private timer: NodeJS.Timeout | undefined;
  private last = 0;
  private closed = false;

  constructor(private readonly out: NodeJS.WriteStream = process.stderr) {}

  /** Whether a live line belongs on this terminal (a TTY, not --json). */
  static wanted(json: boolean, stream: NodeJS.WriteStream = process.stderr): boolean {
    return !json && stream.isTTY === true && process.env.TERM !== 'dumb';
  }

  onEvent(e: RunEvent): void {
    if (this.closed) return;
    switch (e.kind) {
      case 'infer.request':
        this.waiting.set(e.id, { pid: e.pid, type: e.type, since: performance.now(), tokens: 0, attempt: e.attempt });
        break;
      case 'infer.delta': {
        const w = this.waiting.get(e.id);
        if (!w) return;
        w.tokens = e.tokens;
        break;
      }
      case 'infer.reply':
      case 'infer.error':
        if (!this.waiting.delete(e.id)) return;
        break;
      default:
        return;
    }
    this.schedule();
  }

  /** Removes the lines (before other output, and at the end). */
  clear(): void {
    if (this.drawn === 0) return;
    this.out.write(`\x1b[${this.drawn}A\r\x1b[J`);
    this.drawn = 0;
  }

  draw(): void {
    if (this.closed) return;
    this.clear();
    const now = performance.now();
    const lines = [...this.waiting.values()].map((w) => {
      const s = ((now - w.since) / 1000).toFixed(1);
      const again = w.attempt > 1 ? ` (attempt ${w.attempt})` : '';
      return `… process ${w.pid}: infer ${w.type}${again} · ${w.tokens} token${w.tokens === 1 ? '' : 's'} · ${s} s`;
    });
    const width = Math.max(20, (this.out.columns ?? 80) - 1);
    if (lines.length > 0) this.out.write(lines.map((l) => (l.length > width ? l.slice(0, width - 1) + '…' : l)).join('\n') + '\n');
    this.drawn = lines.length;
    this.last = now;
    if (this.waiting.size > 0 && !this.timer) {
      this.timer = setInterval(() => this.draw(), 1000);
      this.timer.unref();
    } else if (this.waiting.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  close(): void {
    this.clear();
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
  }

  private schedule(): void {
    const since = performance.now() - this.last;
    if (since >= REDRAW_MS || this.waiting.size === 0) this.draw();
  }
}
