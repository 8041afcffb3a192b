// The contract of the MCP host tools as the durability layer needs it (which calls may be sent
// again under their key when their outcome is unknown), so that runtime/durable/ does not import
// the MCP client (runtime/mcp/) to know it. runtime/mcp/tools.ts implements the tools.

/** The host tool that calls an MCP server's tool. */
export const MCP_CALL_TOOL = 'mcp_call';
/** The MCP host tools that only read (list tools, list and read resources, list and get prompts): always safe to ask again. */
export const MCP_READ_ONLY_TOOLS: ReadonlySet<string> = new Set(['mcp_tools', 'mcp_resources', 'mcp_read', 'mcp_templates', 'mcp_prompts', 'mcp_prompt']);

/** Whether an `mcp_call` request was declared idempotent (its options' `idempotent`). */
export function mcpCallIsIdempotent(args: readonly unknown[]): boolean {
  const o = args[4];
  return !!o && typeof o === 'object' && (o as Record<string, unknown>).idempotent === true;
}
