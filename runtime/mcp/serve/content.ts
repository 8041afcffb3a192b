// MCP content from Turn values. A served closure answers with text (its value as JSON, plus
// `structuredContent` under an output schema) unless its value is a *content value*: a map whose
// `"mcp_content"` key names the kind, as std/mcp's helpers make them:
//
//   {"mcp_content": "text", "text": Str}
//   {"mcp_content": "image" | "audio", "data": Str (base64), "mimeType": Str}
//   {"mcp_content": "resource", "uri": Str, "mimeType": Str, "text": Str}   (or "blob": base64)
//   {"mcp_content": "blocks", "blocks": [content value, ...]}              (a reply of several)
//   {"mcp_content": "message", "role": "user" | "assistant", "content": content value}  (prompts)
//
// A reserved key rather than the MCP block's own `type`: a program that returns a server's reply or a
// decoded API value as data (which may well hold a `"type": "image"`) is answered with that data as
// JSON, never reinterpreted. A content value is presentation only; it grants nothing. A marked value
// that is malformed fails the call with what is wrong, rather than reaching the client half-made.
import type { ContentBlock, PromptMessage } from '@modelcontextprotocol/sdk/types.js';

export const CONTENT_KEY = 'mcp_content';

export class ContentError extends Error {}

const isObj = (x: unknown): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x);

/** Whether `value` is marked as content (a map with the reserved key). */
export function isContentValue(value: unknown): value is Record<string, unknown> {
  return isObj(value) && typeof value[CONTENT_KEY] === 'string';
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const MIME = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$/;

function str(v: Record<string, unknown>, key: string, kind: string): string {
  const x = v[key];
  if (typeof x !== 'string') throw new ContentError(`a content value of kind "${kind}" needs "${key}" (a Str)`);
  return x;
}

function mime(v: Record<string, unknown>, kind: string): string {
  const m = str(v, 'mimeType', kind);
  if (!MIME.test(m)) throw new ContentError(`"${m}" is not a MIME type (type/subtype)`);
  return m;
}

function base64(v: Record<string, unknown>, key: string, kind: string): string {
  const d = str(v, key, kind);
  if (d.length % 4 !== 0 || !BASE64.test(d)) throw new ContentError(`"${key}" of a content value of kind "${kind}" must be base64 (std/mcp's helpers take it so; encode bytes with base64 first)`);
  return d;
}

/** One content block from a content value (not "blocks" nor "message"). Throws ContentError. */
export function contentBlock(v: Record<string, unknown>): ContentBlock {
  const kind = v[CONTENT_KEY];
  switch (kind) {
    case 'text':
      return { type: 'text', text: str(v, 'text', kind) };
    case 'image':
    case 'audio':
      return { type: kind, data: base64(v, 'data', kind), mimeType: mime(v, kind) };
    case 'resource': {
      const uri = str(v, 'uri', kind);
      const mimeType = mime(v, kind);
      if (typeof v.text === 'string') return { type: 'resource', resource: { uri, mimeType, text: v.text } };
      if (typeof v.blob === 'string') return { type: 'resource', resource: { uri, mimeType, blob: base64(v, 'blob', kind) } };
      throw new ContentError('a content value of kind "resource" needs "text" (a Str) or "blob" (base64)');
    }
    default:
      throw new ContentError(`"${String(kind)}" is not a kind of content here (text, image, audio, resource, blocks, message)`);
  }
}

/** The blocks of a tool's reply for a content value (one block, or "blocks"). Throws ContentError. */
export function replyBlocks(v: Record<string, unknown>): ContentBlock[] {
  if (v[CONTENT_KEY] !== 'blocks') return [contentBlock(v)];
  const blocks = v.blocks;
  if (!Array.isArray(blocks)) throw new ContentError('a content value of kind "blocks" needs "blocks" (a list of content values)');
  return blocks.map((b, i) => {
    if (!isContentValue(b) || b[CONTENT_KEY] === 'blocks' || b[CONTENT_KEY] === 'message') throw new ContentError(`blocks[${i}] is not a content value (text, image, audio, resource)`);
    return contentBlock(b);
  });
}

/**
 * A prompt's messages from its closure's value: a Str (one user message), a content value (one user
 * message of it), a "message" value, or a list of any of these. Throws ContentError.
 */
export function promptMessages(value: unknown): PromptMessage[] {
  const items = Array.isArray(value) ? value : [value];
  return items.map((item, i): PromptMessage => {
    if (typeof item === 'string') return { role: 'user', content: { type: 'text', text: item } };
    if (!isContentValue(item)) throw new ContentError(`message ${i + 1} of the prompt is neither a Str nor a content value (std/mcp)`);
    if (item[CONTENT_KEY] !== 'message') return { role: 'user', content: contentBlock(item) };
    const role = item.role;
    if (role !== 'user' && role !== 'assistant') throw new ContentError(`message ${i + 1} of the prompt: "role" must be "user" or "assistant"`);
    const content = typeof item.content === 'string' ? { type: 'text' as const, text: item.content } : isContentValue(item.content) ? contentBlock(item.content) : undefined;
    if (!content) throw new ContentError(`message ${i + 1} of the prompt: "content" must be a Str or a content value`);
    return { role, content: content };
  });
}
