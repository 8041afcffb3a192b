// `///` doc comments: what a served MCP tool (runtime/mcp/serve/discover.ts) and a tool an `infer`
// offers the model (runtime/compile/tool-signature.ts) say they do.

/** The `///` lines directly above `offset`'s line in `text`, joined (undefined without any). */
export function docCommentBefore(text: string, offset: number): string | undefined {
  const lines: string[] = [];
  let end = text.lastIndexOf('\n', offset - 1);
  while (end > 0) {
    const start = text.lastIndexOf('\n', end - 1) + 1;
    const line = text.slice(start, end).trim();
    if (!line.startsWith('///')) break;
    lines.unshift(line.slice(3).trim());
    end = start - 1;
  }
  const doc = lines.join(' ').trim();
  return doc === '' ? undefined : doc;
}
