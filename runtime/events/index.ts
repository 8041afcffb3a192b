// The run's event stream: what the runtime did (model requests and replies, retries, repairs,
// context tier demotions and drops, scoped invocations, process spawns and exits). Events stay in
// the runtime — nothing here ever enters a model context; a program's context holds only what
// the program appended. The trace (`turn run --trace`) is this stream as JSON lines.

export interface RunEvent {
  /** 1, 2, 3.. in emission order */
  seq: number;
  /** milliseconds since the run started (the only clock reading; it never reaches a prompt) */
  ms: number;
  kind: string;
  [key: string]: unknown;
}

export type EventSink = (event: RunEvent) => void;

export class EventLog {
  readonly events: RunEvent[] = [];
  private seq = 0;
  private readonly start = performance.now();

  constructor(
    private readonly sink?: EventSink,
    /** keep events in memory (`events`) as well as passing them to the sink */
    private readonly keep = true,
  ) {}

  /** Whether anyone receives events: when not, emitting costs nothing (a run without a trace). */
  get active(): boolean {
    return this.keep || this.sink !== undefined;
  }

  emit(kind: string, data: Record<string, unknown> = {}): RunEvent | undefined {
    if (!this.keep && !this.sink) return undefined;
    const event: RunEvent = { seq: ++this.seq, ms: Math.round((performance.now() - this.start) * 1000) / 1000, kind, ...data };
    if (this.keep) this.events.push(event);
    if (this.sink) {
      try {
        this.sink(event);
      } catch {
        // a trace sink that fails never fails the run
      }
    }
    return event;
  }

  ofKind(kind: string): RunEvent[] {
    return this.events.filter((e) => e.kind === kind);
  }
}

/** One event as one JSON line (the trace format). */
export function traceLine(event: RunEvent): string {
  return JSON.stringify(event);
}
