// A minimal MCP server over stdio (newline-delimited JSON-RPC) for the probe of agents.e2e.ts: two
// tools with the same input schema, one with `$schema` draft 2020-12 (as `turn mcp` writes it) and
// one without, to see which VS Code lists.
const readline = require('node:readline');
const schema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false };
const tools = [
  { name: 'probe_plain', description: 'Greets (schema without $schema).', inputSchema: schema },
  { name: 'probe_2020', description: 'Greets (schema with $schema 2020-12).', inputSchema: { $schema: 'https://json-schema.org/draft/2020-12/schema', ...schema } },
];
const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  if (m.method === 'initialize') send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'probe', version: '1' } } });
  else if (m.method === 'tools/list') send({ jsonrpc: '2.0', id: m.id, result: { tools } });
  else if (m.method === 'tools/call') send({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: `probe says hello to ${m.params.arguments.name}` }], _meta: { 'turn/confidence': 0.5 } } });
  else send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'no such method' } });
});
