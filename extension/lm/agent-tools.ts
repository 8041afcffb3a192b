// Turn agents for VS Code's agent mode: each workspace file that returns a map of closures (what
// `turn mcp FILE` serves: docs/mcp.md) is offered as an MCP server definition, which VS Code starts
// as `node dist/cli.js mcp FILE FLAGS` with the `turn.run.*` settings as flags (the grants the runs
// will have), so agent mode lists and calls the closures as tools with their schemas and
// annotations. No `vscode` import: the definitions are computed here and unit-tested in Node; the
// provider is registered in extension/lm/register.ts.
//
// Why an MCP server definition provider, not `languageModelTools`: those must be declared
// statically in package.json, while a workspace's served closures are known only once its files are
// read and change as they are edited; `turn mcp` already gives each closure its input and output
// schema, validation, annotations (read-only, destructive) and bounds, and the provider's
// definitions follow the files (onDidChangeMcpServerDefinitions).
import * as path from 'node:path';
import { cliArgsFromSettings, type RunSettings } from '../settings.js';

export interface AgentServer {
  /** shown in VS Code's MCP server list: the file and the grants its runs have */
  label: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  /** the file it serves */
  file: string;
}

export interface Runtime {
  /** the extension host's executable (process.execPath) */
  execPath: string;
  /** Electron (desktop VS Code): scripts run only with ELECTRON_RUN_AS_NODE */
  electron: boolean;
  /** the bundled CLI (dist/cli.js) */
  cliPath: string;
}

/** A file agent mode may be offered: a .tn file that is not a test file (test files return their tests as closures too). */
export function mayServe(file: string): boolean {
  return file.endsWith('.tn') && !file.endsWith('_test.tn');
}

/**
 * The grants a served file's runs have, in words, for the server's label: what the settings give
 * (`turn.run.allowNet`, `allowRead`, `allowWrite`, `allowEnv`, `allowRun`), `no grants` when none.
 */
export function grantsText(s: RunSettings): string {
  const parts: string[] = [];
  const list = (what: string, xs: string[]) => {
    if (xs.length > 0) parts.push(`${what} ${xs.join(', ')}`);
  };
  list('net', s.allowNet);
  list('read', s.allowRead);
  list('write', s.allowWrite);
  list('env', s.allowEnv);
  list('run', s.allowRun);
  return parts.length > 0 ? parts.join('; ') : 'no grants';
}

/**
 * The `turn mcp` server for `file`. Its runs take the settings' grants and budgets as `turn run`
 * would; a `vscode:` model exists only in the extension host, so such a server gets the default
 * model instead (said in the label).
 */
export function agentServer(rt: Runtime, file: string, s: RunSettings, cwd: string): AgentServer {
  const flags = cliArgsFromSettings(s, cwd);
  const editorOnly = s.model.startsWith('vscode:');
  if (editorOnly) flags.splice(flags.indexOf('--model'), 2);
  const rel = path.relative(cwd, file) || path.basename(file);
  return {
    label: `Turn: ${rel} (${grantsText(s)}${editorOnly ? `; model: not ${s.model}, which exists only in the editor's runs` : ''})`,
    command: rt.execPath,
    args: [rt.cliPath, 'mcp', file, ...flags],
    env: rt.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {},
    file,
  };
}
