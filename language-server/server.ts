// The Turn language server: wires an LSP connection to the pure handlers next to this file.
//
// Two ways in:
//  - VS Code forks dist/server.js with `--node-ipc` (extension/client.ts); run as the main script,
//    this module starts itself (see the bottom of the file).
//  - Other editors run `turn lsp`, whose CLI calls `startServer()`: with no transport flag on the
//    command line it speaks LSP on stdin/stdout.
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
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
import { onFoldingRanges, onSelectionRanges } from './ranges.js';
import { onSemanticTokens } from './semantic-tokens.js';
import { uriToPath } from './uri.js';
import { documentDiagnostics, validateDocument } from './validate.js';
import type { CheckFn } from './validate.js';
import { Workspace } from './workspace.js';

/** Delay between the last edit of a burst and the re-check. */
export const CHECK_DEBOUNCE_MS = 150;

export interface ServerOptions {
  /** A checker to use for diagnostics instead of the document model's own analysis. Tests pass a fake. */
  check?: CheckFn;
  debounceMs?: number;
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
  // Notifications and requests run in arrival order: each waits for everything received before it.
  let chain: Promise<unknown> = workspace;
  const inOrder = <T>(fn: (ws: Workspace) => T): Promise<T> => {
    const next = chain.then(() => workspace.then(fn));
    chain = next.catch(() => undefined);
    return next;
  };
  const withDocument =
    <P extends { textDocument: { uri: string } }, R>(handler: (doc: TurnDocument, params: P) => R, empty: R) =>
    (params: P) =>
      inOrder((ws) => {
        const doc = ws.get(params.textDocument.uri);
        return doc ? handler(doc, params) : empty;
      });
  const withWorkspace =
    <P extends { textDocument: { uri: string } }, R>(handler: (ws: Workspace, doc: TurnDocument, params: P) => R, empty: R) =>
    (params: P) =>
      inOrder((ws) => {
        const doc = ws.get(params.textDocument.uri);
        return doc ? handler(ws, doc, params) : empty;
      });

  const debouncer = createDebouncer<string>(options.debounceMs ?? CHECK_DEBOUNCE_MS, (uri) => {
    void publish(uri);
  });

  async function publish(uri: string): Promise<void> {
    const ws = await workspace;
    const doc = ws.get(uri);
    if (!doc) return;
    const version = doc.version;
    if (!options.check) await doc.prepareSchemas();
    const diagnostics = options.check ? await validateDocument({ uri, getText: () => doc.text }, options.check) : documentDiagnostics(doc);
    // A newer edit has its own check coming, and a closed document has had its diagnostics cleared.
    if (ws.get(uri)?.version !== version) return;
    await connection.sendDiagnostics({ uri, version, diagnostics });
    options.onPublished?.(uri, version);
  }

  connection.onInitialize((params) => {
    const roots = workspaceRoots(params, uriToPath);
    void workspace.then((ws) => {
      ws.roots = roots;
    });
    return onInitialize(params);
  });
  connection.onDidOpenTextDocument(({ textDocument: d }) =>
    inOrder((ws) => {
      ws.openDocument(d.uri, d.text, d.version);
      debouncer.schedule(d.uri);
    }),
  );
  connection.onDidChangeTextDocument(({ textDocument: d, contentChanges }) =>
    inOrder((ws) => {
      if (ws.changeDocument(d.uri, contentChanges, d.version ?? 0)) debouncer.schedule(d.uri);
    }),
  );
  connection.onDidCloseTextDocument(({ textDocument: d }) =>
    inOrder((ws) => {
      debouncer.cancel(d.uri);
      ws.closeDocument(d.uri);
      void connection.sendDiagnostics({ uri: d.uri, diagnostics: [] });
    }),
  );

  connection.onCompletion(withDocument(onCompletion, null));
  connection.onHover(withDocument(onHover, null));
  connection.onDefinition(withWorkspace(onDefinition, null));
  connection.onReferences(withWorkspace(onReferences, []));
  connection.onPrepareRename(withWorkspace(onPrepareRename, null));
  connection.onRenameRequest(withWorkspace(onRename, null));
  connection.onDocumentSymbol(withDocument(onDocumentSymbol, []));
  connection.onWorkspaceSymbol((params) => inOrder((ws) => onWorkspaceSymbol(ws, params)));
  connection.languages.semanticTokens.on(withDocument(onSemanticTokens, { data: [] }));
  connection.onFoldingRanges(withDocument(onFoldingRanges, []));
  connection.onSelectionRanges(withDocument(onSelectionRanges, []));
  connection.onDocumentFormatting(withDocument(onFormatting, []));
  connection.onCodeAction(withDocument(onCodeAction, []));
  // The schema quick fix: fetch the document's URL specs (again), then publish fresh diagnostics.
  connection.onExecuteCommand(async ({ command, arguments: args }) => {
    if (command !== FETCH_SCHEMAS_COMMAND || typeof args?.[0] !== 'string') return;
    const uri = args[0];
    const doc = (await workspace).get(uri);
    if (!doc) return;
    await doc.prepareSchemas({ fetch: true, refresh: true });
    await publish(uri);
  });

  connection.onShutdown(async () => {
    debouncer.dispose();
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
