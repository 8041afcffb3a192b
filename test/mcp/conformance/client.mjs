#!/usr/bin/env node
// The client under test for the conformance suite's client scenarios: the suite runs
// `node client.mjs <server-url>` with MCP_CONFORMANCE_SCENARIO set. It writes the Turn program for
// the scenario and runs it with the built `turn` (Turn's MCP client: runtime/mcp), granted the
// network to the suite's server only. Its exit code is the run's.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const url = process.argv[2];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? 'initialize';
const lit = (s) => JSON.stringify(s);
const programs = {
  // connect (initialize, initialized) and list the tools
  initialize: `let tools = call("mcp_tools", null, ${lit(url)});\ncall("echo", "tools: " + call("len", tools));\n`,
  // list the tools and call add_numbers with typed arguments
  tools_call: `let tools = call("mcp_tools", null, ${lit(url)});\nlet r = call("mcp_call", null, ${lit(url)}, "add_numbers", {"a": 2, "b": 3}, {});\ncall("echo", r["text"]);\n`,
  // the server closes the tools/call SSE stream: the client reconnects (retry, Last-Event-ID) for the reply
  'sse-retry': `let r = call("mcp_call", null, ${lit(url)}, "test_reconnection", {}, {});\ncall("echo", r["text"]);\n`,
  // the server asks the operator a form whose fields all have defaults: --answer accepts it, and the
  // client fills the defaults into the accepted content (SEP-1034)
  'elicitation-sep1034-client-defaults': `let r = call("mcp_call", null, ${lit(url)}, "test_client_elicitation_defaults", {}, {});\ncall("echo", r["text"]);\n`,
};
/** the operator's answers, as `turn run` takes them, per scenario */
const answers = { 'elicitation-sep1034-client-defaults': ['--answer', '*=accept'] };
// any other scenario (OAuth): connect, list and call the first tool
const fallback = `let tools = call("mcp_tools", null, ${lit(url)});\nif call("len", tools) > 0 { let r = call("mcp_call", null, ${lit(url)}, tools[0]["name"], {}, {}); call("echo", r["text"]); }\n`;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-conformance-client-'));
const file = path.join(dir, 'client.tn');
fs.writeFileSync(file, programs[scenario] ?? fallback);
const host = new URL(url).host;
const r = spawnSync(process.execPath, [path.join(root, 'bin', 'turn.js'), 'run', file, '--allow-net', host, ...(answers[scenario] ?? [])], { stdio: 'inherit' });
fs.rmSync(dir, { recursive: true, force: true });
process.exit(r.status ?? 1);
