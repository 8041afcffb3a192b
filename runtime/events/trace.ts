// The trace sink of `turn run --trace` (JSON lines on standard error) and `--trace-file FILE`
// (JSON lines in FILE, created or truncated). One line per event, written as it happens.
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
