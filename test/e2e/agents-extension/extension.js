// Test extension of test/e2e/agents.e2e.ts. Its commands act as agent mode would, without the chat
// UI (which code-server shows only with a chat extension such as Copilot): `Turn e2e: Call a Turn
// Tool` calls the MCP tool whose name ends with TURN_E2E_AGENTS_TOOL with the input
// TURN_E2E_AGENTS_INPUT (JSON) through vscode.lm.invokeTool, and `Turn e2e: Probe MCP Tools`
// reports what VS Code offers of MCP: its mcp commands, the tools vscode.lm lists, and a call of
// the tool of this extension's own MCP server (probe-server.js, offered by the `turnE2e.probe`
// provider). Each report is a JSON line appended to TURN_E2E_AGENTS_LOG, which the test reads.
const vscode = require('vscode');
const { appendFileSync } = require('node:fs');

const note = (o) => appendFileSync(process.env.TURN_E2E_AGENTS_LOG, JSON.stringify(o) + '\n');

/** A tool result's parts, as plain data: text parts' values, other parts by their class and fields. */
function partsOf(result) {
  return (result?.content ?? []).map((p) => {
    if (p instanceof vscode.LanguageModelTextPart) return { kind: 'text', value: p.value };
    if (vscode.LanguageModelDataPart && p instanceof vscode.LanguageModelDataPart) return { kind: 'data', mimeType: p.mimeType, value: Buffer.from(p.data).toString('utf8') };
    return { kind: p?.constructor?.name ?? typeof p, value: JSON.stringify(p) };
  });
}

const toolsNow = () => vscode.lm.tools.map((t) => ({ name: t.name, tags: t.tags, description: t.description, inputSchema: t.inputSchema }));

/** Waits (bounded) until vscode.lm lists a tool `match` accepts: the list has no change event in the API. */
async function toolAppearing(match, ms) {
  const end = Date.now() + ms;
  for (;;) {
    const t = vscode.lm.tools.find(match);
    if (t || Date.now() > end) return t;
    await new Promise((r) => setTimeout(r, 250));
  }
}

exports.activate = (context) => {
  context.subscriptions.push(
    vscode.lm.registerMcpServerDefinitionProvider('turnE2e.probe', {
      provideMcpServerDefinitions: async () => [new vscode.McpStdioServerDefinition('probe', process.execPath, [context.asAbsolutePath('probe-server.js')])],
    }),
    vscode.commands.registerCommand('turnE2e.callTurnTool', async () => {
      // an MCP tool's name in vscode.lm is mcp_<server>_<tool>: found by its end
      const suffix = process.env.TURN_E2E_AGENTS_TOOL;
      try {
        const tool = await toolAppearing((t) => (t.tags ?? []).includes('mcp') && t.name.endsWith(suffix), 60_000);
        if (!tool) return note({ step: 'call', error: `no tool *${suffix} in vscode.lm.tools`, tools: toolsNow() });
        const name = tool.name;
        note({ step: 'tool', tool: { name: tool.name, tags: tool.tags, description: tool.description, inputSchema: tool.inputSchema } });
        const input = JSON.parse(process.env.TURN_E2E_AGENTS_INPUT ?? '{}');
        const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }, new vscode.CancellationTokenSource().token);
        note({ step: 'call', parts: partsOf(result) });
      } catch (e) {
        note({ step: 'call', error: String(e && e.message ? e.message : e) });
      }
    }),
    vscode.commands.registerCommand('turnE2e.probeMcp', async () => {
      const commands = (await vscode.commands.getCommands(true)).filter((c) => /mcp/i.test(c));
      note({ step: 'commands', commands, autostart: vscode.workspace.getConfiguration('chat.mcp').get('autostart'), enabled: vscode.workspace.getConfiguration('chat.mcp').get('enabled') });
      note({ step: 'tools-before', tools: toolsNow().map((t) => ({ name: t.name, tags: t.tags })) });
      const mcp = await toolAppearing((t) => t.name.includes('probe_plain'), 45_000);
      note({ step: 'tools-after-wait', found: mcp?.name ?? null, tools: toolsNow().map((t) => ({ name: t.name, tags: t.tags })) });
      if (mcp) {
        try {
          const result = await vscode.lm.invokeTool(mcp.name, { input: { name: 'Ada' }, toolInvocationToken: undefined }, new vscode.CancellationTokenSource().token);
          note({ step: 'mcp-call', tool: mcp.name, parts: partsOf(result) });
        } catch (e) {
          note({ step: 'mcp-call', tool: mcp.name, error: String(e && e.message ? e.message : e) });
        }
      }
      note({ step: 'probe-done' });
    }),
  );
};
