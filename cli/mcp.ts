// `turn mcp FILE [run options]`: serves the closures FILE returns as MCP tools over standard
// input/output (docs/mcp.md). Standard output is the MCP connection, so nothing else is written
// to it; messages go to standard error. Each tool call is a run with the capabilities given here.
import { InputError, ServeError, serveMcp } from '../runtime/index.js';
import { RUN_OPTIONS, runOptionsFrom } from './run-options.js';
import { EXIT, err, parse, singleFile } from './usage.js';

export async function mcpCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, RUN_OPTIONS);
  const file = singleFile(positionals, 'mcp');
  const { traceFile: _trace, ...run } = runOptionsFrom(values);
  try {
    const { tools, closed } = await serveMcp(file, { run: { ...run, ...(values['trace-file'] !== undefined ? { traceFile: String(values['trace-file']) } : {}) } });
    err(`turn: serving ${tools.length} tool${tools.length === 1 ? '' : 's'} of ${file} over MCP (stdio): ${tools.map((t) => t.name).join(', ')}`);
    await closed;
    return EXIT.ok;
  } catch (e) {
    if (e instanceof ServeError || e instanceof InputError) {
      err(`turn: ${e.message}`);
      return EXIT.compileError;
    }
    throw e;
  }
}
