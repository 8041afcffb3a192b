// The Turn runtime's public entry: everything the CLI, the language server and the editor use of
// the runtime, and nothing else (the layering check in `npm test` holds them to it). Two halves:
// the language tooling (parse, check, format, symbols) and running programs (the run API, stored
// runs, the debugger, the values they show).

// ---- Language tooling
export type * as Ast from './syntax/ast.js';
export type { Program, UseExpr, UseSchemaExpr } from './syntax/ast.js';
export { SCOPE_POLICIES } from './syntax/ast.js';
export { SourceFile, type Position } from './syntax/source.js';
export { createParser, parseSource } from './syntax/parse.js';
export { nestingBeyond, nestingMessage } from './syntax/nesting.js';
export { lowerProgram } from './syntax/lower.js';
export { LoweringCache } from './syntax/lower.js';
export { walk, forEachChild, isStatement, type ChildRole, type WalkVisitor } from './syntax/walk.js';
export { formatDiagnostic, hasErrors, type Diagnostic, type Severity } from './diagnostics.js';
export { checkParsed, checkSource, stdDirectory, typedModuleUses, type CheckResult } from './check/index.js';
export { PROJECT_FILE } from './check/project.js';
export { ModuleGraph, type ModuleContext, type ModuleExports, type ModuleSource, type CheckedModule, type ExportedType } from './check/modules.js';
export { absorbSchemas, schemaKey, useSchemaNodes, type AbsorbedSchemas, type SchemaFetching } from './check/schemas.js';
export {
  describeSymbol, indexProgram, lookupName, membersOf, moduleRefAt, refAt, referencesOf, visibleNames, typeAt,
  type SymbolDef, type SymbolIndex, type SymbolRef,
} from './check/symbols.js';
export { ANY, BUILTIN_TYPE_NAMES, typeToString, type StaticType, type ModuleShape, type ModuleMember } from './check/types.js';
export { editDistance } from './check/spelling.js';
export { HOST_TOOL_RESULTS } from './check/host-tools.js';
export { typeToSchema, SchemaError, type TypeEnv, type JsonSchema } from './infer/schema.js';
export { CHECK_NAMES, CHECK_DOCS, PREDICATE_KEYWORD } from './infer/checks.js';
export { INFER_OPTIONS, INFER_OPTION_NAMES, expectation as inferOptionExpectation, optionsText as inferOptionsText, optionHelp as inferOptionHelp } from './infer/options.js';
export { PROTOCOLS as SCHEMA_PROTOCOLS } from './absorb/types.js';
export { IDENTITY_KINDS } from './effects/identity.js';
export { formatTree, formatSource, type FormatResult } from './format/index.js';
export { readSourceText, decodeSource, loadProgram, InputError, MAX_SOURCE_BYTES, type FileDiagnostic, type LoadedProgram } from './load.js';

// ---- Running programs
export * from './run/index.js';
export { isEvent, type RunEvent, type RunEventBody, type RunEventKind, type PromptView } from './events/index.js';
export type { ValidationIssue } from './infer/types.js';
export { validateValue, formatIssue } from './infer/validate.js';
export type { ConfidenceInfo } from './infer/confidence.js';
export { calibrate, type CalibrateOptions, type CalibrationReport, type SourceReport, type CaseResult } from './calibration/run.js';
export { DatasetError } from './calibration/dataset.js';
export { CalibrationFileError, DEFAULT_CALIBRATION_FILE, readCalibration, type CalibrationFile, type CalibrationMap } from './calibration/file.js';
export { identityText } from './calibration/identity.js';
export { countTokens } from './context/index.js';
export type { ContextLimits } from './context/index.js';
export { render as renderValue, StructVal, Uncertain, MediaVal, type Value } from './values/index.js';
export { pdfPages } from './media/tokens.js';
export { Debugger, debugRender, type StopEvent, type FrameInfo, type StepMode, type BreakpointSpec, type BoundBreakpoint, type DebuggerOptions, type ExceptionFilter } from './vm/debug.js';

// ---- Authority: vaults, approvals and redaction the editor supplies
export { EnvVault, MemoryVault, SecretStorageVault, SECRET_STORAGE_PREFIX, Redactor, VaultError, type Vault, type VaultEntry, type SecretStorageLike } from './effects/vault.js';
export type { ApprovalDecision, ApprovalHook, ApprovalRequest } from './effects/capabilities.js';
export { describeGrant } from './effects/grants.js';
export type { EffectGrant } from './ports/host.js';

// ---- Stored (durable) runs
export { openStore, defaultStoreDir, DEFAULT_STORE_DIR, STORE_FILE, StoreError, type RunRecord, type RunStatus, type JournalEntry, type RunStore } from './store/index.js';
export { settleUnknown, blockingUnknowns, currentHash, getRun, ResumeRefused, type Settlement, type Settled } from './durable/runs.js';
export { inspectRun, journalGrant, type RunInspection } from './durable/inspect.js';
export { blocksOfStore, reassembledOrNote } from './durable/request-blocks.js';
export { journalProcesses, SPAWN_KIND, type JournaledProcess } from './durable/process-names.js';
export { bytesJson, storeMessage } from './durable/index.js';
export { stateAtStep, MemoryRunStore, type StepState } from './durable/travel.js';
export { inferSchemas } from './durable/step-schemas.js';
export { openQuestions, answerQuestion, type OpenQuestion, type Answered } from './durable/answers.js';
export { ASK_TOOL, type AskPort, type AskQuestion, type AskLocation } from './ports/ask.js';
export { checkAnswer as checkAskAnswer, checkAnswerText as checkAskAnswerText, MAX_ANSWER_BYTES as MAX_ASK_ANSWER_BYTES, type CheckedAnswer as CheckedAskAnswer } from './ask/answer.js';
export { describeType as describeAskType } from './ask/terminal.js';
export { forkRun, forkable, stepValue, ForkRefused, EDITED_CONFIDENCE, type ForkEdit, type ForkOptions, type Forked } from './durable/fork.js';

// ---- Testing agent programs (docs/testing.md)
export * from './testing/index.js';

// ---- Runs on Restate (docs/scale-out.md): worker, submit, and list/inspect/resume/resolve by URL
export {
  startRestateWorker, startBalancer, RestateError, defaultAdminUrl, registerDeployment, newRestateRunId, submitRun, runStatus, runDump,
  resumeRestateRun, resolveRestateRun, waitForRun, listRestateRuns, inspectRestateRun, storeFromDump, RESTATE_SERVICE,
  type RestateRunRow, type Submission, type RunSummary, type RunDump, type Wake, type Worker, type WorkerOptions, type Balancer,
} from './restate/index.js';
export { sourcesOf } from './durable/runs.js';
export { SEMANTICS_VERSION } from './durable/index.js';
export { nowMs } from './monotonic.js';

// ---- MCP (docs/mcp.md): serving a program's closures as MCP tools (`turn mcp`)
export { serveMcp, discoverServed, callProgram, ServeError, type Served, type ServedTool, type ServeOptions, type Serving, type CallRequest, type PerformCall } from './mcp/serve.js';
export { serveMcpNext, type ServeNextOptions } from './mcp/serve-next/index.js';

// ---- files: a write a reader never sees half of (the extension's kept panel view)
export { writeFileAtomic } from './fs-atomic.js';

// ---- observability (docs/observability.md): OpenTelemetry export of a run, token summaries and costs
export { telemetryConfig, TelemetryConfigError, type TelemetryOptions } from './telemetry/index.js';
export { TokenTally, isRealModel, type ModelTokens } from './telemetry/tokens.js';
export { readPriceTable, parsePriceTable, tokenSummary, summaryLines, costOf, money, PriceTableError, type PriceTable, type TokenSummary } from './telemetry/costs.js';

// ---- the playground (docs/editor.md, *Playground*): one function of a file, run with given arguments
export * from './playground/index.js';
