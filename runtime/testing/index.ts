// Testing agent programs (docs/testing.md): test discovery, running each test in a fresh VM through
// the run API, recorded model replies with stale-request detection, recordings cut from a stored
// run's journal, evals, and the reporters of `turn test`.
export { findTestFiles, discoverTests, discoverSource, TEST_FILE_SUFFIX, type TestCase, type TestFile } from './discover.js';
export { runTest, testProgram, DEFAULT_TEST_MAX_STEPS, DEFAULT_TEST_MAX_TIME_MS, type TestResult, type TestStatus, type TestRunOptions, type InferenceStats, type Location, type Answering } from './run-test.js';
export { runTestFile, selectTests, type FileResult, type FileRunOptions, type RecordMode } from './runner.js';
export { report, summarize, summaryLine, specReport, tapReport, junitReport, REPORTERS, type ReporterName, type Summary } from './report.js';
export { cassettePath, readCassette, parseCassette, formatCassette, CassetteError, CASSETTE_VERSION, type Cassette, type Exchange, type TestRecording } from './cassette.js';
export { staleDiff, type StaleDiffOptions } from './stale-diff.js';
export { recordRun, exchangesOfRun, RecordError, type Recorded, type RecordOptions } from './from-journal.js';
export { evaluate, evalTable, EvalError, type EvalReport, type EvalSample, type EvalOptions } from './eval.js';
