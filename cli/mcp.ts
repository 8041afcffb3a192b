// `turn mcp FILE [--port N [--token-file FILE]] [--store DIR] [run options]`: serves the closures FILE returns as
// MCP tools over standard input/output, or with --port over Streamable HTTP on 127.0.0.1
// (docs/mcp.md), for clients that send the bearer token printed here at start (once, on standard
// error) or read from --token-file. Over stdio, standard output is the MCP connection, so nothing
// else is written to it; messages go to standard error. Each tool call is a run with the
// capabilities given here; with --store DIR, a durable run in that store, under the call's
// idempotency key (a retry after a kill of this process never repeats an effect).
import { InputError, ServeError, serveMcpNext } from '../runtime/index.js';
import { COMMANDS } from './commands.js';
import { runOptionsFrom } from './run-options.js';
import { EXIT, err, numberOption, parse, singleFile, UsageError } from './usage.js';

export async function mcpCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, COMMANDS.mcp.options, 'mcp');
  const file = singleFile(positionals, 'mcp');
  // --trace (standard error) is kept; a trace is written per call run
  const run = runOptionsFrom(values);
  const port = numberOption(values.port, 'port');
  const tokenFile = values['token-file'] !== undefined ? String(values['token-file']) : undefined;
  if (tokenFile !== undefined && port === undefined) throw new UsageError('--token-file goes with --port (over standard input/output no token is needed)');
  try {
    const store = values.store !== undefined ? String(values.store) : undefined;
    const serving = await serveMcpNext(file, { run, ...(port !== undefined ? { port } : {}), ...(tokenFile !== undefined ? { tokenFile } : {}), ...(store !== undefined ? { store } : {}) });
    const { tools, prompts, resources } = serving.served;
    const count = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 's'}`;
    const offered = [count(tools.length, 'tool'), ...(prompts.length > 0 ? [count(prompts.length, 'prompt')] : []), ...(resources.length > 0 ? [count(resources.length, 'resource')] : [])].join(', ');
    // printed once, for the operator to give the client (before the line that says serving has begun)
    if (serving.token?.generated) err(`turn: clients must send Authorization: Bearer ${serving.token.value}`);
    err(`turn: serving ${offered} of ${file} over MCP (${serving.url ?? 'stdio'})${store !== undefined ? `, each call a durable run in ${store}` : ''}: ${tools.map((t) => t.name).join(', ')}`);
    if (serving.url) {
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await serving.close();
    } else await serving.closed;
    return EXIT.ok;
  } catch (e) {
    if (e instanceof ServeError || e instanceof InputError) {
      err(`turn: ${e.message}`);
      return EXIT.compileError;
    }
    throw e;
  }
}
