// Turn agents for VS Code's agent mode: each workspace file that returns a map of closures (what
// `turn mcp FILE` serves: docs/mcp.md) is served by the extension itself over MCP Streamable HTTP
// on 127.0.0.1 (extension/lm/agent-server.ts, `turn mcp --port`'s library entry, with a bearer
// token only VS Code is given) and offered as an McpHttpServerDefinition (extension/lm/register.ts).
// Each tool call then runs in the extension host through the run panel's Runner, like Run File in
// Panel: live in the panel, durable in the Runs view (with `turn.durableRuns`), with the vault's
// credentials, the `vscode:` models and Stop. This file is what is computed about it, with no
// `vscode` import (unit-tested in Node): the grants in words, what the tools are offered as, the
// server's label and a call's result.
//
// Why an MCP server definition provider, not static `languageModelTools`: those must be declared
// in package.json, while a workspace's served closures are known only once its files are read, and
// change as they are edited; through MCP each closure is its own tool with its input schema, its
// annotations (read-only, destructive) and `turn mcp`'s validation and bounds, and the definitions
// follow the files. Why served by the extension, not a `turn mcp FILE` child process: a child's
// runs are not the editor's (not in the panel nor the Runs view, no vault, no `vscode:` model, no
// Stop). code-server 4.104 (VS Code 1.104) starts an extension's MCP servers without a trust
// prompt, lists their tools in `vscode.lm.tools` and calls them through `vscode.lm.invokeTool`
// (test/e2e/agents.e2e.ts), so no static contribution is needed as a fallback.
import * as path from 'node:path';
import type { RunSettings } from '../settings.js';
import { Uncertain, type Run, type RunResult, type Served, type ServedTool } from '../../runtime/index.js';

/** A file agent mode may be offered: a .tn file that is not a test file (test files return their tests as closures too). */
export function mayServe(file: string): boolean {
  return file.endsWith('.tn') && !file.endsWith('_test.tn');
}

/**
 * The grants a served file's runs have, in words: what the settings give (`turn.run.allowNet`,
 * `allowRead`, `allowWrite`, `allowEnv`, `allowRun`, `approveEffects`) and the budgets they set;
 * `no grants` when none. Said in the server's label and in each tool's confirmation.
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
  list('approved without asking', s.approveEffects);
  const budgets: string[] = [];
  if (s.maxModelCalls !== undefined) budgets.push(`${s.maxModelCalls} model calls`);
  if (s.maxTimeSeconds !== undefined) budgets.push(`${s.maxTimeSeconds} s`);
  if (s.maxSteps !== undefined) budgets.push(`${s.maxSteps} steps`);
  if (budgets.length > 0) parts.push(`at most ${budgets.join(', ')}`);
  return parts.length > 0 ? parts.join('; ') : 'no grants';
}

/** The server's label in VS Code's MCP server list: the file (relative to its workspace folder) and its runs' grants. */
export function serverLabel(file: string, cwd: string, s: RunSettings): string {
  const rel = path.relative(cwd, file) || path.basename(file);
  return `Turn: ${rel} (${grantsText(s)})`;
}

/** The most of a closure's own description kept in a tool's (VS Code shows it in the confirmation). */
const MAX_DESCRIPTION = 2_000;

/**
 * What VS Code is offered of a served file: its tools only (a prompt or resource would run outside
 * the panel), each described with where it runs, the grants and model its run has, and what it
 * returns — VS Code's confirmation of a tool call shows this description, so it names the grants.
 * No tool is read-only to VS Code, so each call is confirmed (offeredTools' body says why).
 * Each input schema loses its `$schema` (draft 2020-12): VS Code 1.104 checks tool schemas against
 * draft-07 and leaves out every tool whose schema names another draft. No output schema is
 * offered: the result is `{value, confidence}` (callResult), not the closure's bare value.
 */
export function offeredTools(served: Served, grants: string, model: string): Served {
  const tools = served.tools.map((t): ServedTool => {
    const { $schema: _draft, ...inputSchema } = t.inputSchema as Record<string, unknown>;
    const own = t.description.length > MAX_DESCRIPTION ? `${t.description.slice(0, MAX_DESCRIPTION)}…` : t.description;
    const description = [
      own,
      `Runs as a Turn program in the editor (shown in the Turn run panel) with: ${grants}; model ${model}.`,
      'Returns {"value": ..., "confidence": 0..1}: confidence is how likely the value is right (1: no model was involved).',
    ].filter((x) => x !== '').join('\n\n');
    const { outputSchema: _out, ...rest } = t;
    // never read-only to VS Code, which asks to confirm only the calls of tools that are not: every
    // call runs with the workspace's grants and spends its model budget, so the confirmation that
    // names them is shown each time (until the user allows the tool for good there)
    const annotations = { ...t.annotations, readOnlyHint: false };
    return { ...rest, description, annotations, inputSchema: inputSchema as ServedTool['inputSchema'] };
  });
  return { ...served, tools, prompts: [], resources: [] };
}

/** A call's arguments in the closure's parameter order (a left-out optional one is null). */
export function argumentValues(tool: ServedTool, args: Record<string, unknown>): unknown[] {
  return tool.params.map((p) => (Object.prototype.hasOwnProperty.call(args, p.name) ? args[p.name] : null));
}

/** The entry a call runs as in the panel: named after the served file and the tool (the panel's title, the Runs view's row). */
export function callEntryName(file: string, tool: string): string {
  return `${file}#${tool}`;
}

/** How a call of a served closure ended in the editor. */
export type EditorCallOutcome =
  | { ok: true; value: unknown; confidence: number }
  | { ok: false; message: string };

/** An MCP tool result, as `turn mcp` sends one (the SDK's CallToolResult, narrowed to what is made here). */
export interface AgentToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: { value: unknown; confidence: number };
  isError?: boolean;
}

/** The digits a confidence is given with: what `confidence e` prints, without float noise. */
const roundConfidence = (c: number): number => Math.round(c * 1e6) / 1e6;

/**
 * A call's result for VS Code: `{value, confidence}` as structured content and as text (VS Code
 * passes the model only the structured content when there is some); a failure is an error result
 * with the reason, never a stack.
 */
export function callResult(outcome: EditorCallOutcome): AgentToolResult {
  if (!outcome.ok) return { isError: true, content: [{ type: 'text', text: outcome.message }] };
  const confidence = Number.isFinite(outcome.confidence) ? roundConfidence(Math.min(1, Math.max(0, outcome.confidence))) : 0;
  const structured = { value: outcome.value ?? null, confidence };
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

/** What the panel's run of a call gave: its final status and error (the view), and its result when it started. */
export interface SettledCall {
  status: string;
  error?: string;
  settled?: { result: RunResult; run: Pick<Run, 'redact' | 'redactDeep'> };
}

/**
 * A call's outcome from its run in the panel: the value (as JSON, redacted by its run) and its
 * confidence (`confidence v`: below 1 when a model made it), or why there is none, as the panel
 * says it (a compile error located in the served file, a stop, a wait).
 */
export function editorOutcome(call: SettledCall): EditorCallOutcome {
  const s = call.settled;
  if (s?.result.kind === 'done') {
    const v = s.result.value;
    return { ok: true, value: s.run.redactDeep(s.result.json), confidence: v instanceof Uncertain ? v.c : 1 };
  }
  const why = call.error ?? (s?.result.kind === 'stopped' ? s.result.reason : `the run ended ${call.status}`);
  return { ok: false, message: s ? s.run.redact(why) : why };
}
