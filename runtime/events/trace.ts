// The trace sink of `turn run --trace` (JSON lines on standard error) and `--trace-file FILE`
// (JSON lines in FILE, created or truncated). One line per event, written as it happens.
// Its events are redacted before they get here, as for every sink: the host's `event` redacts each
// one, and a model's streamed text is redacted as a stream before it is an event (runtime/run/host.ts).
// The host is the only place a trace is opened.
import * as fs from 'node:fs';
import { traceLine, type EventSink } from './index.js';

export interface TraceSink {
  sink: EventSink;
  close(): void;
}

/** `target`: `-` for standard error, else a file path. Throws when the file cannot be opened. */
export function openTrace(target: string): TraceSink {
  if (target === '-') {
    return { sink: (e) => process.stderr.write(traceLine(e) + '\n'), close: () => {} };
  }
  const fd = fs.openSync(target, 'w');
  let open = true;
  return {
    sink: (e) => {
      if (open) fs.writeSync(fd, traceLine(e) + '\n');
    },
    close: () => {
      if (open) {
        open = false;
        fs.closeSync(fd);
      }
    },
  };
}
