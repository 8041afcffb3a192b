// What the Test Explorer shows for a test's result, as plain data (no `vscode` import, so it is
// unit-tested in Node): the message, where it points (the failing assert, or the test for a stale
// recording), and for a stale recording the two requests to diff and the re-record action.
import * as path from 'node:path';
import { staleDiff, type TestResult } from '../../runtime/index.js';

/** The context value of a stale recording's message: the "Re-record" action shows on it (package.json). */
export const STALE_CONTEXT = 'turnStaleRecording';

export interface ShownMessage {
  text: string;
  /** absolute file, 0-based line and column */
  location?: { file: string; line: number; column: number };
  /** a stale recording: the recorded request (expected) and the one sent now (actual) */
  diff?: { expected: string; actual: string };
  contextValue?: string;
}

export function shownMessage(result: TestResult, cwd: string): ShownMessage {
  const text = [result.message ?? 'failed', result.details].filter(Boolean).join('\n');
  const loc = result.location ?? { path: result.file, line: result.line, column: result.column };
  const shown: ShownMessage = {
    text,
    location: { file: path.resolve(cwd, loc.path), line: Math.max(0, loc.line - 1), column: Math.max(0, loc.column - 1) },
  };
  if (result.status === 'stale') {
    shown.contextValue = STALE_CONTEXT;
    if (result.requests) {
      shown.diff = { expected: result.requests.recorded, actual: result.requests.now };
      // the first differing lines, wrapped: the peek shows them without a side-by-side editor
      const readable = staleDiff(result.requests.recorded, result.requests.now);
      if (readable) shown.text = [result.message ?? 'stale recording', readable].join('\n\n');
    }
  }
  return shown;
}

/** A test item's id: the file's URI and the test's name. */
export function testId(fileUri: string, name: string): string {
  return `${fileUri}#${name}`;
}
