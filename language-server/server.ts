// The Turn language server: wires an LSP connection to the pure handlers next to this file.
//
// Two ways in:
//  - VS Code forks dist/server.js with `--node-ipc` (extension/client.ts); run as the main script,
//    this module starts itself (see the bottom of the file).
//  - Other editors run `turn lsp`, whose CLI calls `startServer()`: with no transport flag on the
//    command line it speaks LSP on stdin/stdout.
import { createConnection, ProposedFeatures, TextDocuments } from 'vscode-languageserver/node';
import type { Connection } from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { checkSource } from '../runtime/check/index.js';
import { createDebouncer } from './debounce.js';
import { onInitialize } from './initialize.js';
import { validateDocument } from './validate.js';
import type { CheckFn } from './validate.js';

/** Delay between the last edit of a burst and the re-check. */
export const CHECK_DEBOUNCE_MS = 150;

export interface ServerOptions {
  /** The checker; `checkSource` of runtime/check by default. Tests pass a fake. */
  check?: CheckFn;
  debounceMs?: number;
}

export interface RunningServer {
  connection: Connection;
  documents: TextDocuments<TextDocument>;
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

/** Starts the Turn language server on `connection` (by default, see `createDefaultConnection`). */
export function startServer(connection: Connection = createDefaultConnection(), options: ServerOptions = {}): RunningServer {
  const check: CheckFn = options.check ?? checkSource;
  const documents = new TextDocuments(TextDocument);

  const debouncer = createDebouncer<string>(options.debounceMs ?? CHECK_DEBOUNCE_MS, (uri) => {
    void publish(uri);
  });

  async function publish(uri: string): Promise<void> {
    const document = documents.get(uri);
    if (!document) return;
    const version = document.version;
    const diagnostics = await validateDocument(document, check);
    // A newer edit has its own check coming, and a closed document has had its diagnostics cleared.
    if (documents.get(uri)?.version !== version) return;
    await connection.sendDiagnostics({ uri, version, diagnostics });
  }

  connection.onInitialize(onInitialize);
  documents.onDidChangeContent((e) => debouncer.schedule(e.document.uri));
  documents.onDidClose((e) => {
    debouncer.cancel(e.document.uri);
    void connection.sendDiagnostics({ uri: e.document.uri, diagnostics: [] });
  });
  connection.onShutdown(() => debouncer.dispose());

  documents.listen(connection);
  connection.listen();
  return { connection, documents };
}

/** True when this file is the script node was started with (dist/server.js), not a module of the CLI bundle. */
function runAsMain(): boolean {
  return /(^|[\\/])server\.(c?js|ts)$/.test(process.argv[1] ?? '');
}

if (runAsMain()) startServer();
