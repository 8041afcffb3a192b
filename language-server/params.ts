// The shapes of the parameters every LSP message the server handles, checked at the boundary
// (server.ts) before a handler sees them: a handler may then trust its parameters' types. A request
// whose parameters do not fit is answered with InvalidParams; a notification is ignored with a log
// line. Only what the server reads is checked; extra properties (protocol extensions) pass.
import type {
  CodeActionParams,
  CompletionParams,
  DefinitionParams,
  DidChangeTextDocumentParams,
  DidChangeWatchedFilesParams,
  DidCloseTextDocumentParams,
  DidOpenTextDocumentParams,
  DocumentFormattingParams,
  DocumentSymbolParams,
  ExecuteCommandParams,
  FoldingRangeParams,
  HoverParams,
  InitializeParams,
  PrepareRenameParams,
  ReferenceParams,
  RenameParams,
  SelectionRangeParams,
  SemanticTokensParams,
  WorkspaceSymbolParams,
} from 'vscode-languageserver';

/**
 * A check of an untrusted value: what is wrong with it (naming the part by `at`, e.g.
 * `params.position.line`), or undefined when it has the shape of a `T`.
 */
export interface Check<T> {
  (value: unknown, at: string): string | undefined;
  /** Only for the type checker: the type a value that passes has. */
  readonly __type?: T;
}

/** The check's type. */
export type Checked<C> = C extends Check<infer T> ? T : never;

export type Validation<T> = { ok: true; value: T } | { ok: false; problem: string };

/** `value` as a `T` when it passes `check`, else what is wrong with it. */
export function validate<T>(check: Check<T>, value: unknown): Validation<T> {
  const problem = check(value, 'params');
  return problem === undefined ? { ok: true, value: value as T } : { ok: false, problem };
}

const describe = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'string' ? 'a string' : typeof v === 'object' ? 'an object' : `${typeof v} ${String(v)}`);
const expected = (at: string, what: string, v: unknown) => `${at} must be ${what}, not ${describe(v)}`;

export const string: Check<string> = (v, at) => (typeof v === 'string' ? undefined : expected(at, 'a string', v));
export const boolean: Check<boolean> = (v, at) => (typeof v === 'boolean' ? undefined : expected(at, 'a boolean', v));

/** LSP's `uinteger`: 0 to 2^31 - 1. */
export const uinteger: Check<number> = (v, at) => (Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 2 ** 31 - 1 ? undefined : expected(at, 'an integer from 0 to 2^31 - 1', v));
/** LSP's `integer`: -2^31 to 2^31 - 1. */
export const integer: Check<number> = (v, at) => (Number.isInteger(v) && Math.abs(v as number) <= 2 ** 31 ? undefined : expected(at, 'a 32-bit integer', v));

/** One of these values. */
export const literal =
  <T extends string | number>(...values: T[]): Check<T> =>
  (v, at) =>
    values.includes(v as T) ? undefined : `${at} must be ${values.map((x) => JSON.stringify(x)).join(' or ')}, not ${describe(v)}`;

export const optional =
  <T>(check: Check<T>): Check<T | undefined> =>
  (v, at) =>
    v === undefined ? undefined : check(v, at);

export const nullable =
  <T>(check: Check<T>): Check<T | null> =>
  (v, at) =>
    v === null ? undefined : check(v, at);

export const either =
  <A, B>(a: Check<A>, b: Check<B>): Check<A | B> =>
  (v, at) => {
    const first = a(v, at);
    return first === undefined || b(v, at) === undefined ? undefined : first;
  };

export const array =
  <T>(item: Check<T>): Check<T[]> =>
  (v, at) => {
    if (!Array.isArray(v)) return expected(at, 'an array', v);
    for (let i = 0; i < v.length; i++) {
      const problem = item(v[i], `${at}[${i}]`);
      if (problem !== undefined) return problem;
    }
    return undefined;
  };

type Shape = Record<string, Check<unknown>>;
type ObjectOf<S extends Shape> = { [K in keyof S as undefined extends Checked<S[K]> ? never : K]: Checked<S[K]> } & {
  [K in keyof S as undefined extends Checked<S[K]> ? K : never]?: Checked<S[K]>;
};

/** An object with (at least) these properties; a property whose check accepts undefined may be absent. */
export const object =
  <S extends Shape>(shape: S): Check<ObjectOf<S>> =>
  (v, at) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return expected(at, 'an object', v);
    for (const [key, check] of Object.entries(shape)) {
      const problem = check((v as Record<string, unknown>)[key], `${at}.${key}`);
      if (problem !== undefined) return problem;
    }
    return undefined;
  };

// ---- The protocol's shapes

export const position = object({ line: uinteger, character: uinteger });
export const range = object({ start: position, end: position });
const textDocument = object({ uri: string });
const positionParams = { textDocument, position };

export type RootParams = Partial<Pick<InitializeParams, 'workspaceFolders' | 'rootUri' | 'rootPath'>> & {
  /** read only for what the server registers dynamically; its shape is not checked */
  capabilities?: { workspace?: { didChangeWatchedFiles?: { dynamicRegistration?: unknown } } };
};
export const initializeParams: Check<RootParams> = object({
  workspaceFolders: optional(nullable(array(object({ uri: string, name: string })))),
  rootUri: optional(nullable(string)),
  rootPath: optional(nullable(string)),
});

export const didOpenParams: Check<DidOpenTextDocumentParams> = object({
  textDocument: object({ uri: string, languageId: string, version: integer, text: string }),
});

const absent: Check<undefined> = (v, at) => (v === undefined ? undefined : `${at} must be a range or absent, not ${describe(v)}`);
/** A ranged change, or a change of the whole text (no range). */
const contentChange = either(object({ range, rangeLength: optional(uinteger), text: string }), object({ range: absent, text: string }));

export const didChangeParams: Check<DidChangeTextDocumentParams> = object({
  textDocument: object({ uri: string, version: integer }),
  contentChanges: array(contentChange),
});

export const didCloseParams: Check<DidCloseTextDocumentParams> = object({ textDocument });

export const completionParams: Check<CompletionParams> = object(positionParams);
export const hoverParams: Check<HoverParams> = object(positionParams);
export const definitionParams: Check<DefinitionParams> = object(positionParams);
export const referenceParams: Check<ReferenceParams> = object({ ...positionParams, context: object({ includeDeclaration: boolean }) });
export const prepareRenameParams: Check<PrepareRenameParams> = object(positionParams);
export const renameParams: Check<RenameParams> = object({ ...positionParams, newName: string });

export const documentSymbolParams: Check<DocumentSymbolParams> = object({ textDocument });
export const semanticTokensParams: Check<SemanticTokensParams> = object({ textDocument });
export const foldingRangeParams: Check<FoldingRangeParams> = object({ textDocument });
export const selectionRangeParams: Check<SelectionRangeParams> = object({ textDocument, positions: array(position) });
export const formattingParams: Check<DocumentFormattingParams> = object({ textDocument, options: object({ tabSize: uinteger, insertSpaces: boolean }) });

const markup = object({ kind: literal('plaintext', 'markdown'), value: string });
const diagnostic = object({
  range,
  message: either(string, markup),
  code: optional(either(string, integer)),
  source: optional(string),
});
export const codeActionParams: Check<CodeActionParams> = object({
  textDocument,
  range,
  context: object({ diagnostics: array(diagnostic), only: optional(array(string)) }),
});

export const didChangeWatchedFilesParams: Check<DidChangeWatchedFilesParams> = object({ changes: array(object({ uri: string, type: literal(1, 2, 3) })) });
export const workspaceSymbolParams: Check<WorkspaceSymbolParams> = object({ query: string });
export const executeCommandParams: Check<ExecuteCommandParams> = object({ command: string, arguments: optional(array((_v: unknown, _at: string) => undefined)) });
