// The run API: one way to run a Turn program (docs/architecture.md).
export { startRun, resumeRun, compileProgram, Run, type RunResult, type ProgramError, type RunMeta, type CompiledProgram } from './run.js';
export type { ProcessView } from '../durable/views.js';
export type { ProcessInfo } from '../vm/actors.js';
export { buildHost, knownSecretsRedactor, type RunHost } from './host.js';
export { RunSetupError, type SetupErrorKind } from './errors.js';
export type { RunOptions, AuthorityOptions, EffectWait, HostModels } from './options.js';
export { hostChatProvider, hostChatTurns, DEFAULT_HOST_CHAT_BOUNDS, ProviderError, type HostChat, type HostChatBounds, type ChatTurn } from '../providers/index.js';
export { createModel, DEFAULT_MODEL, inferRetriesFromEnv, ModelInputError, UnknownModelError, type Model } from './model.js';
export { runPlacedChild, type PlacedOutcome } from './placed.js';
export { useParseCache, type ParseCache } from '../syntax/parse-cache.js';
export { SEMANTICS_VERSION } from '../durable/index.js';
