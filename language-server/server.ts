// The Turn language server: wires an LSP connection to the pure handlers next to this file.
//
// Two ways in:
//  - VS Code forks dist/server.js with `--node-ipc` (extension/client.ts); run as the main script,
//    this module starts itself (see the bottom of the file).
//  - Other editors run `turn lsp`, whose CLI calls `startServer()`: with no transport flag on the
//    command line it speaks LSP on stdin/stdout.
import { createConnection, DidChangeWatchedFilesNotification, ErrorCodes, FileChangeType, ProposedFeatures, ResponseError } from 'vscode-languageserver/node';
import type { Connection } from 'vscode-languageserver/node';
import { FETCH_SCHEMAS_COMMAND, onCodeAction } from './code-actions.js';
import { onCompletion } from './completion.js';
import { createDebouncer } from './debounce.js';
import type { TurnDocument } from './document.js';
import { onFormatting } from './formatting.js';
import { onHover } from './hover.js';
import { onInitialize, workspaceRoots } from './initialize.js';
import { onDefinition, onPrepareRename, onReferences, onRename } from './navigation.js';
import { onDocumentSymbol, onWorkspaceSymbol } from './outline.js';
import * as P from './params.js';
import { validate, type Check } from './params.js';
import { onFoldingRanges, onSelectionRanges } from './ranges.js';
import { onSemanticTokens } from './semantic-tokens.js';
import { uriToPath } from './uri.js';
import { documentDiagnostics, validateDocument } from './validate.js';
import type { CheckFn } from './validate.js';
import { Workspace } from './workspace.js';
import { dependentsOf, prepareModules } from './modules.js';
import { PROJECT_FILE } from '../runtime/index.js';
import { staleView } from './stale.js';
import type { Position, Range } from 'vscode-languageserver';

/** Delay between the last edit of a burst and the re-check. */
export const CHECK_DEBOUNCE_MS = 150;

/**
 * Quiet time after diagnostics are published before the symbol index of that analysis is built.
 * Building it takes a pass over the program (0.2–0.7 s at 45,000 lines) on the one thread that also
 * answers requests; while edits keep coming, requests answer from the last indexed analysis instead.
 */
export const INDEX_IDLE_MS = 300;

export interface ServerOptions {
  /** A checker to use for diagnostics instead of the document model's own analysis. Tests pass a fake. */
  check?: CheckFn;
  debounceMs?: number;
  /** Quiet time before the symbol index of a published analysis is built (INDEX_IDLE_MS). */
  indexIdleMs?: number;
  /** Called after the symbol index of a published analysis is built (tests use it). */
  onIndexed?: (uri: string, version: number) => void;
  /** Called after each publish of diagnostics (benchmarks and tests use it). */
  onPublished?: (uri: string, version: number) => void;
}

export interface RunningServer {
  connection: Connection;
  /** The documents and the parser; resolves once the grammar is loaded. */
  workspace: Promise<Workspace>;
}

const TRANSPORT_FLAGS = /^--(node-ipc|stdio|socket|pipe)(=|$)/;

/**
 * Creates the connection this process should use: the one named on the command line (`--node-ipc`,
 * `--stdio`, `--socket=N`, `--pipe=NAME`), else stdin/stdout. On stdio, stdout belongs to the protocol, so
 * `console.log`/`info`/`debug` are sent to the client's log instead.
 */
export function createDefaultConnection(argv: readonly string[] = process.argv.slice(2)): Connection {
  if (argv.some((a) => TRANSPORT_FLAGS.test(a))) return createConnection(ProposedFeatures.all);
  const connection = createConnection(ProposedFeatures.all, process.stdin, process.stdout);
  const toLog = (...args: unknown[]) => connection.console.log(args.map(String).join(' '));
  console.log = toLog;
  console.info = toLog;
  console.debug = toLog;
  return connection;
}

/**
 * Starts the Turn language server on `connection` (by default, see `createDefaultConnection`).
 * Every handler is a plain function of (document model, parameters) in its own module; this function
 * only keeps the documents in sync (incrementally: LSP edits become tree-sitter edits) and routes.
 */
export function startServer(connection: Connection = createDefaultConnection(), options: ServerOptions = {}): RunningServer {
  const workspace = Workspace.create();
  const log = (message: string) => connection.console.warn(message);
  // Notifications and requests run in arrival order: each waits for everything received before it.
  let chain: Promise<unknown> = workspace;
  const inOrder = <T>(fn: (ws: Workspace) => T): Promise<T> => {
    const next = chain.then(() => workspace.then(fn));
    chain = next.catch(() => undefined);
    return next;
  };

  // Every message's parameters are validated here, at the boundary (params.ts), before a handler
  // sees them. A request answers, always: its result, InvalidParams, or the handler's error.
  const request =
    <P, R>(method: string, check: Check<P>, run: (params: P) => R | Promise<R>) =>
    async (raw: unknown): Promise<R | ResponseError<never>> => {
      const v = validate(check, raw);
      if (!v.ok) {
        log(`${method}: invalid params: ${v.problem}`);
        return new ResponseError<never>(ErrorCodes.InvalidParams, `invalid params: ${v.problem}`);
      }
      try {
        return await run(v.value);
      } catch (err) {
        if (err instanceof ResponseError) throw err;
        log(`${method} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        return new ResponseError<never>(ErrorCodes.InternalError, `${method} failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    };
  // A notification has no answer: one that does not fit is ignored, one that fails is logged; neither
  // may reject, since an unhandled rejection ends the process. `run` is called at once, so that it
  // takes its place in the arrival order before the next message.
  const notification =
    <P>(method: string, check: Check<P>, run: (params: P) => Promise<unknown>) =>
    (raw: unknown): void => {
      const v = validate(check, raw);
      if (!v.ok) {
        log(`${method}: ignored, invalid params: ${v.problem}`);
        return;
      }
      const failed = (err: unknown) => log(`${method} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      try {
        run(v.value).catch(failed);
      } catch (err) {
        failed(err);
      }
    };
  /** A request about one open document; an unknown or too-large document gets `empty`. */
  const withDocument = <P extends { textDocument: { uri: string } }, R>(method: string, check: Check<P>, handler: (doc: TurnDocument, params: P) => R, empty: R) =>
    request(method, check, (params: P) =>
      inOrder((ws) => {
        const doc = ws.get(params.textDocument.uri);
        return doc && !doc.tooLarge ? handler(doc, params) : empty;
      }),
    );
  /**
   * Completion and hover: answered from the last analysis when the current one is not made yet
   * (stale.ts), so they never wait for a re-check of a large file; else as `withDocument`.
   * `splice`: completion, which may be answered at the cursor's edited line.
   */
  const fromLastAnalysis = <P extends { textDocument: { uri: string }; position: Position }, R>(
    method: string,
    check: Check<P>,
    handler: (doc: TurnDocument, params: P) => R,
    empty: R,
    splice: boolean,
    mapRanges: (result: R, toCurrent: (r: Range) => Range) => R,
  ) =>
    request(method, check, (params: P) =>
      inOrder((ws) => {
        const doc = ws.get(params.textDocument.uri);
        if (!doc || doc.tooLarge) return empty;
        // the current analysis when its index is built; else the last indexed one (no pass over the program)
        const last = doc.analysed && doc.analysis().indexed ? undefined : doc.lastAnalysis;
        const view = last && staleView(doc, last, params.position, splice);
        if (!view) return handler(doc, params);
        return mapRanges(handler(view.doc, { ...params, position: view.position }), view.toCurrent);
      }),
    );
  const withWorkspace = <P extends { textDocument: { uri: string } }, R>(method: string, check: Check<P>, handler: (ws: Workspace, doc: TurnDocument, params: P) => R, empty: R) =>
    request(method, check, (params: P) =>
      inOrder((ws) => {
        const doc = ws.get(params.textDocument.uri);
        return doc && !doc.tooLarge ? handler(ws, doc, params) : empty;
      }),
    );

  const debouncer = createDebouncer<string>(options.debounceMs ?? CHECK_DEBOUNCE_MS, (uri) => {
    publish(uri).catch((err: unknown) => log(`publishing diagnostics for ${uri} failed: ${err instanceof Error ? err.message : String(err)}`));
  });

  /**
   * Waits until the requests received so far are answered and their answers written: a check is
   * synchronous for seconds on a large file, and it must not hold back an answer already computed.
   * (The connection writes each answer from a `setImmediate`; a debounce timer that expired while a
   * request was being handled would otherwise run the check first.)
   */
  const afterPendingRequests = async (): Promise<void> => {
    await inOrder(() => undefined);
    await new Promise<void>((resolve) => setImmediate(resolve));
  };

  async function publish(uri: string): Promise<void> {
    await afterPendingRequests();
    const ws = await workspace;
    const doc = ws.get(uri);
    if (!doc) return;
    const version = doc.version;
    if (!options.check) {
      await doc.prepareSchemas();
      // a failure here must not cost the document its own diagnostics: it is then checked alone
      await prepareModules(ws, doc).catch((err: unknown) => log(`checking the modules of ${uri} failed: ${err instanceof Error ? err.message : String(err)}`));
    }
    const diagnostics = options.check && !doc.tooLarge ? await validateDocument({ uri, getText: () => doc.text }, options.check) : documentDiagnostics(doc);
    // A newer edit has its own check coming, and a closed document has had its diagnostics cleared.
    if (ws.get(uri)?.version !== version) return;
    await connection.sendDiagnostics({ uri, version, diagnostics });
    options.onPublished?.(uri, version);
    // The symbol index (completion, hover) is built once the document has been quiet for a while
    // after the diagnostics are out: built at once, a request right after the next edit would wait
    // for it. Until then requests answer from the last indexed analysis (document.ts).
    indexWhenIdle(ws, doc);
  }

  const indexTimers = new Map<string, NodeJS.Timeout>();
  const cancelIndex = (uri: string): void => {
    clearTimeout(indexTimers.get(uri));
    indexTimers.delete(uri);
  };
  function indexWhenIdle(ws: Workspace, doc: TurnDocument): void {
    cancelIndex(doc.uri);
    const version = doc.version;
    const build = async (): Promise<void> => {
      indexTimers.delete(doc.uri);
      await afterPendingRequests();
      if (ws.get(doc.uri) !== doc || doc.version !== version || !doc.analysed || doc.tooLarge) return;
      void doc.analysis().index;
      options.onIndexed?.(doc.uri, version);
    };
    const timer = setTimeout(() => {
      build().catch((err: unknown) => log(`indexing ${doc.uri} failed: ${err instanceof Error ? err.message : String(err)}`));
    }, options.indexIdleMs ?? INDEX_IDLE_MS);
    indexTimers.set(doc.uri, timer);
  }

  /** Re-checks the open documents that read `file` when they were last checked (it changed). */
  const recheckDependents = (ws: Workspace, file: string): void => {
    for (const d of dependentsOf(ws, file)) debouncer.schedule(d.uri);
  };
  let watchFiles = false;

  connection.onInitialize(
    request('initialize', P.initializeParams, (params) => {
      watchFiles = params.capabilities?.workspace?.didChangeWatchedFiles?.dynamicRegistration === true;
      const roots = workspaceRoots(params, uriToPath);
      void workspace.then((ws) => {
        ws.roots = roots;
      });
      return onInitialize(params);
    }),
  );
  connection.onDidOpenTextDocument(
    notification('textDocument/didOpen', P.didOpenParams, ({ textDocument: d }) =>
      inOrder((ws) => {
        const doc = ws.openDocument(d.uri, d.text, d.version);
        // the editor's text now stands for the file on disk in the documents that use it
        recheckDependents(ws, doc.path);
        // checked at once: the debounce coalesces a burst of edits, and an open is not one (it was
        // 150 ms of the time `turn lsp` took to its first diagnostics)
        debouncer.runNow(d.uri);
      }),
    ),
  );
  connection.onDidChangeTextDocument(
    notification('textDocument/didChange', P.didChangeParams, ({ textDocument: d, contentChanges }) =>
      inOrder((ws) => {
        cancelIndex(d.uri); // the document is not quiet: requests answer from the last indexed analysis
        const doc = ws.changeDocument(d.uri, contentChanges, d.version);
        if (!doc) return;
        debouncer.schedule(d.uri);
        recheckDependents(ws, doc.path);
      }),
    ),
  );
  connection.onDidCloseTextDocument(
    notification('textDocument/didClose', P.didCloseParams, ({ textDocument: d }) =>
      inOrder((ws) => {
        debouncer.cancel(d.uri);
        cancelIndex(d.uri);
        const closed = ws.get(d.uri)?.path;
        ws.closeDocument(d.uri);
        // the file on disk stands for it again
        if (closed) recheckDependents(ws, closed);
        return connection.sendDiagnostics({ uri: d.uri, diagnostics: [] });
      }),
    ),
  );

  // Files changed outside the editor: a module on disk re-checks the open documents that use it; a
  // file created or deleted, or a turn.json changed, may change where any `use` leads: all of them.
  connection.onInitialized(() => {
    if (watchFiles) {
      void connection.client
        .register(DidChangeWatchedFilesNotification.type, { watchers: [{ globPattern: '**/*.tn' }, { globPattern: '**/turn.json' }] })
        .catch((err: unknown) => log(`cannot watch files: ${err instanceof Error ? err.message : String(err)}`));
    }
  });
  connection.onDidChangeWatchedFiles(
    notification('workspace/didChangeWatchedFiles', P.didChangeWatchedFilesParams, ({ changes }) =>
      inOrder((ws) => {
        const all = changes.some((c) => c.type !== FileChangeType.Changed || c.uri.endsWith('/' + PROJECT_FILE));
        if (all) {
          for (const d of ws.openDocuments()) debouncer.schedule(d.uri);
          return;
        }
        for (const c of changes) recheckDependents(ws, uriToPath(c.uri));
      }),
    ),
  );

  // completion items carry no ranges (labels and snippets inserted at the cursor)
  connection.onCompletion(fromLastAnalysis('textDocument/completion', P.completionParams, onCompletion, null, true, (items) => items));
  connection.onHover(fromLastAnalysis('textDocument/hover', P.hoverParams, onHover, null, false, (h, toCurrent) => (h?.range ? { ...h, range: toCurrent(h.range) } : h)));
  connection.onDefinition(withWorkspace('textDocument/definition', P.definitionParams, onDefinition, null));
  connection.onReferences(withWorkspace('textDocument/references', P.referenceParams, onReferences, []));
  connection.onPrepareRename(withWorkspace('textDocument/prepareRename', P.prepareRenameParams, onPrepareRename, null));
  connection.onRenameRequest(withWorkspace('textDocument/rename', P.renameParams, onRename, null));
  connection.onDocumentSymbol(withDocument('textDocument/documentSymbol', P.documentSymbolParams, onDocumentSymbol, []));
  connection.onWorkspaceSymbol(request('workspace/symbol', P.workspaceSymbolParams, (params) => inOrder((ws) => onWorkspaceSymbol(ws, params))));
  connection.languages.semanticTokens.on(withDocument('textDocument/semanticTokens/full', P.semanticTokensParams, onSemanticTokens, { data: [] }));
  connection.onFoldingRanges(withDocument('textDocument/foldingRange', P.foldingRangeParams, onFoldingRanges, []));
  connection.onSelectionRanges(withDocument('textDocument/selectionRange', P.selectionRangeParams, onSelectionRanges, []));
  connection.onDocumentFormatting(withDocument('textDocument/formatting', P.formattingParams, onFormatting, []));
  connection.onCodeAction(withDocument('textDocument/codeAction', P.codeActionParams, onCodeAction, []));
  // The schema quick fix: fetch the document's URL specs (again), then publish fresh diagnostics.
  connection.onExecuteCommand(
    request('workspace/executeCommand', P.executeCommandParams, async ({ command, arguments: args }) => {
      if (command !== FETCH_SCHEMAS_COMMAND || typeof args?.[0] !== 'string') return;
      const uri = args[0];
      const doc = (await workspace).get(uri);
      if (!doc) return;
      // a person asked: URL specs are fetched, and stdio MCP servers launched to list their tools
      await doc.prepareSchemas({ fetch: true, refresh: true, launch: true });
      await publish(uri);
    }),
  );

  connection.onShutdown(async () => {
    debouncer.dispose();
    for (const uri of [...indexTimers.keys()]) cancelIndex(uri);
    (await workspace).dispose();
  });

  connection.listen();
  return { connection, workspace };
}

/** True when this file is the script node was started with (dist/server.js), not a module of the CLI bundle. */
function runAsMain(): boolean {
  return /(^|[\\/])server\.(c?js|ts)$/.test(process.argv[1] ?? '');
}

if (runAsMain()) startServer();
