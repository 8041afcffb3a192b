// Where a process stands in the source (a frame's instruction mapped through its prototype's
// spans), and the error values and messages the VM reports there.
import type { Bundle } from '../compile/bundle.js';
import { MESSAGE_VALUE_LENGTH, render, type Value } from '../values/index.js';
import type { Frame, Process, Site, StackEntry } from './process.js';

/** The Map a runtime error raised by the VM is caught as. */
export function runtimeErrorValue(message: string, line: number): Map<string, Value> {
  return new Map<string, Value>([
    ['type', 'RuntimeError'],
    ['message', message],
    ['line', line],
  ]);
}

export function siteOf(bundle: Bundle, frame: Frame, exact: boolean): Site {
  const proto = bundle.functions[frame.proto];
  const unit = bundle.units[proto.unit];
  let at = exact ? frame.ip : frame.ip - 1;
  if (at < 0) at = 0;
  if (at >= proto.spans.length) at = proto.spans.length - 1;
  const pos = unit.file.position(proto.spans[at] ?? 0);
  return { path: unit.path, line: pos.line, column: pos.column };
}

/** The source location of the running (or last run) instruction of `p`. */
export function processSite(bundle: Bundle, p: Process, exact = false): Site {
  const frame = p.frames[p.frames.length - 1];
  if (!frame) return { path: bundle.units[bundle.entry].path, line: 1, column: 1 };
  return siteOf(bundle, frame, exact);
}

export function stackTrace(bundle: Bundle, p: Process, exact = false): StackEntry[] {
  const out: StackEntry[] = [];
  for (let i = p.frames.length - 1; i >= 0; i--) {
    const f = p.frames[i];
    out.push({ fn: bundle.functions[f.proto].name, ...siteOf(bundle, f, exact && i === p.frames.length - 1) });
  }
  return out;
}

/** The message of a run that failed with `v` uncaught. */
export function failureMessage(v: Value): string {
  if (v instanceof Map && (v.get('type') === 'RuntimeError' || v.get('type') === 'InferError') && typeof v.get('message') === 'string') {
    return v.get('message') as string;
  }
  return `uncaught error: ${render(v, false, MESSAGE_VALUE_LENGTH)}`;
}
