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
/** what the scenario gives its client (MCP_CONFORMANCE_CONTEXT): e.g. the tool calls to make */
const context = process.env.MCP_CONFORMANCE_CONTEXT ? JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) : {};
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
  // 2026-07-28's multi round-trip requests (SEP-2322): each tool answers input_required (one with a
  // requestState, one without) and the client retries with the operator's answer; an unrelated
  // call between them, and a result without resultType (complete)
  'sep-2322-client-request-state': ['test_mrtr_echo_state', 'test_mrtr_no_state', 'test_mrtr_unrelated', 'test_mrtr_no_result_type'].map((tool) => `call("echo", call("mcp_call", null, ${lit(url)}, ${lit(tool)}, {}, {})["text"]);\n`).join(''),
  // the tools/list entry is kept and its x-mcp-header parameters mirrored into Mcp-Param-* headers (SEP-2243):
  // the tools listed first, then each call the scenario names, with its arguments
  'http-custom-headers': `let tools = call("mcp_tools", null, ${lit(url)});\n${(context.toolCalls ?? []).map((c) => `call("echo", call("mcp_call", null, ${lit(url)}, ${lit(c.name)}, ${lit(c.arguments ?? {})}, {})["text"]);\n`).join('')}`,
  // the focal tool's inputSchema, as the program sees it, sent back whole (nothing stripped, SEP-1613)
  'json-schema-2020-12-preservation': `let tools = call("mcp_tools", null, ${lit(url)});\nlet i = 0;\nwhile i < call("len", tools) {\n  if tools[i]["name"] == "json_schema_2020_12_tool" { call("echo", call("mcp_call", null, ${lit(url)}, "json_schema_echo", {"schema": tools[i]["inputSchema"]}, {})["text"]); }\n  let i = i + 1;\n}\n`,
};
/** the operator's answers, as `turn run` takes them, per scenario */
const answers = { 'elicitation-sep1034-client-defaults': ['--answer', '*=accept'], 'sep-2322-client-request-state': ['--answer', '*={"confirmed": true}'] };
// any other scenario (elicitation, OAuth): connect, list and call the first tool
const firstTool = (auth) => `let tools = call("mcp_tools", ${auth}, ${lit(url)});\nif call("len", tools) > 0 { let r = call("mcp_call", ${auth}, ${lit(url)}, tools[0]["name"], {}, {}); call("echo", r["text"]); }\n`;
const fallback = firstTool('null');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-conformance-client-'));
const file = path.join(dir, 'client.tn');
const host = new URL(url).host;
let args = ['--allow-net', host, ...(answers[scenario] ?? [])];
const env = { ...process.env };
if (scenario.startsWith('auth/')) {
  // OAuth (runtime/mcp/oauth): the same, signed in under identity::oauth. The suite's authorization
  // server is another port of localhost, and its authorize endpoint redirects at once: the
  // "browser" is browser.mjs, which follows that redirect to Turn's loopback listener. Tokens go to
  // a file of this run's; Turn's client ID metadata document is the URL the suite expects.
  fs.writeFileSync(file, `let id = grant identity::oauth("conformance");\n${firstTool('id')}`);
  args = ['--allow-net', 'localhost:*', '--oauth-client-metadata', 'https://conformance-test.local/client-metadata.json'];
  env.TURN_BROWSER = JSON.stringify([process.execPath, path.join(path.dirname(fileURLToPath(import.meta.url)), 'browser.mjs')]);
  env.TURN_TOKENS_FILE = path.join(dir, 'tokens.json');
  // a pre-registered client: the vault's `<name>.client` secret
  const client = context.client_secret ? `${context.client_id}:${context.client_secret}` : context.client_id;
  if (scenario.startsWith('auth/client-credentials-')) {
    // a machine client (the client credentials grant): `<name>.client_credentials`, and its key for private_key_jwt
    env.TURN_SECRET_CONFORMANCE_CLIENT_CREDENTIALS = client;
    if (context.private_key_pem) env.TURN_SECRET_CONFORMANCE_CLIENT_KEY = context.private_key_pem;
  } else if (context.client_id) env.TURN_SECRET_CONFORMANCE_CLIENT = client;
  // enterprise-managed authorization (SEP-990): the operator's identity provider and the ID token it gave them, `<name>.idp`
  if (context.idp_id_token) env.TURN_SECRET_CONFORMANCE_IDP = JSON.stringify({ token_endpoint: context.idp_token_endpoint, client_id: context.idp_client_id, id_token: context.idp_id_token });
} else {
  fs.writeFileSync(file, programs[scenario] ?? fallback);
}
const r = spawnSync(process.execPath, [path.join(root, 'bin', 'turn.js'), 'run', file, ...args], { stdio: 'inherit', env });
fs.rmSync(dir, { recursive: true, force: true });
process.exit(r.status ?? 1);
