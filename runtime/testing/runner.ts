// One test file: find its tests, run each in a fresh VM (run-test.ts), answering model requests
// from its recording when it has one, and write the recording back when this run recorded:
//   replay  (default) a file with a recording replays it; a file without one runs live (--model)
//   record  every test runs live and its exchanges replace its recording
//   update  replay; a test whose recording is stale runs again live and is re-recorded
// A recording is replaced only by a whole one: a test that ran to its end with every model request
// answered. A test cut short (its time limit, a stop, a failed call left unanswered) keeps its
// earlier recording, and a test that made no exchange never replaces one that has some. The file
// is written atomically (a temporary file renamed over it), so it is never left half-written.
import { CassetteError, cassettePath, readCassette, writeCassette, type Cassette, type LoadedCassette } from './cassette.js';
import { discoverTests, type TestCase } from './discover.js';
import { runTest, type TestResult, type TestRun, type TestRunOptions } from './run-test.js';
import type { Exchange } from './cassette.js';

export type RecordMode = 'replay' | 'record' | 'update';

export interface FileRunOptions extends TestRunOptions {
  mode?: RecordMode;
  /** only the tests whose name contains this text */
  filter?: string;
  /** only the tests of exactly these names (the editor's Test Explorer) */
  only?: string[];
}

export interface FileResult {
  file: string;
  tests: TestResult[];
  /** the file could not be run at all (no tests, a syntax error, a bad recording): `FILE:LINE:COL: ...` */
  error?: string;
  /** the recording this run wrote */
  wrote?: string;
}

export function selectTests(tests: TestCase[], filter: string | undefined): TestCase[] {
  return filter === undefined ? tests : tests.filter((t) => t.name.includes(filter));
}

export async function runTestFile(file: string, options: FileRunOptions = {}): Promise<FileResult> {
  const mode = options.mode ?? 'replay';
  const found = await discoverTests(file);
  if (found.error) return { file, tests: [], error: found.error };
  const only = options.only;
  const tests = selectTests(found.tests, options.filter).filter((t) => !only || only.includes(t.name));
  const recordingFile = cassettePath(file);
  let loaded: LoadedCassette | undefined;
  try {
    loaded = readCassette(recordingFile);
  } catch (e) {
    if (e instanceof CassetteError) return { file, tests: [], error: e.message };
    throw e;
  }
  const model = options.model ?? options.env?.TURN_MODEL ?? process.env.TURN_MODEL ?? 'mock';
  const next: Cassette = { turn_cassette: 1, tests: { ...(loaded?.cassette.tests ?? {}) } };
  let changed = false;
  const results: TestResult[] = [];
  /** Takes a live run's exchanges as the test's recording when they are whole; else keeps the earlier one and says why. */
  const keep = (name: string, live: TestRun, earlier: Exchange[] | undefined): TestResult => {
    const why = live.incomplete ?? (live.exchanges.length === 0 && earlier && earlier.length > 0 ? 'it made no model exchange, and the recording has some' : null);
    if (why === null) {
      next.tests[name] = { model, exchanges: live.exchanges };
      changed = true;
      return { ...live.result, recorded: true };
    }
    const kept = earlier ? `kept the earlier recording (${earlier.length} exchange${earlier.length === 1 ? '' : 's'}): ${why}` : `recorded nothing: ${why}`;
    return { ...live.result, kept, message: live.result.message ? `${live.result.message} (${kept})` : kept };
  };
  for (const test of tests) {
    const recording = loaded?.cassette.tests[test.name];
    if (mode === 'record' || (!loaded && mode === 'update')) {
      results.push(keep(test.name, await runTest(file, test, { kind: 'live' }, options), recording?.exchanges));
      continue;
    }
    if (!loaded) {
      results.push((await runTest(file, test, { kind: 'live' }, options)).result);
      continue;
    }
    const replayed = await runTest(file, test, { kind: 'replay', cassette: loaded, exchanges: recording?.exchanges ?? [] }, options);
    if (replayed.result.status === 'stale' && mode === 'update') {
      results.push(keep(test.name, await runTest(file, test, { kind: 'live' }, options), recording?.exchanges));
      continue;
    }
    results.push(replayed.result);
  }
  if (mode !== 'replay' && options.filter === undefined && options.only === undefined) {
    // recordings of tests the file no longer has go
    const names = new Set(found.tests.map((t) => t.name));
    for (const name of Object.keys(next.tests)) {
      if (!names.has(name)) {
        delete next.tests[name];
        changed = true;
      }
    }
  }
  if (changed) {
    // tests in file order
    const ordered: Cassette = { turn_cassette: 1, tests: {} };
    for (const t of found.tests) if (next.tests[t.name]) ordered.tests[t.name] = next.tests[t.name];
    writeCassette(recordingFile, ordered);
    return { file, tests: results, wrote: recordingFile };
  }
  return { file, tests: results };
}
