// A tool's reply as the program sees it. A tool with an output schema answers with its
// `structuredContent`, validated against that schema before it binds; any other tool answers with
// its content blocks (text, image, audio, embedded resource, resource link) and their text joined.
import AjvModule from 'ajv';
import Ajv2020Module from 'ajv/dist/2020.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { LINEAR_AJV_OPTIONS } from '../linear-regex.js';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../values/index.js';
import { McpError } from './server.js';

/** The server answered the call with `isError`: the program catches it as a thrown `McpToolError`. */
export class McpToolError extends Error {
  override name = 'McpToolError';
}

type AjvLike = { compile(schema: object): ((v: unknown) => boolean) & { errors?: { instancePath: string; message?: string }[] | null } };
type AjvCtor = new (opts: Record<string, unknown>) => AjvLike;
const ctor = (m: unknown): AjvCtor => ((m as { default?: AjvCtor }).default ?? m) as AjvCtor;

let draft7: AjvLike | undefined;
let draft2020: AjvLike | undefined;
const compiled = new Map<string, ReturnType<AjvLike['compile']>>();

/** A validator for a tool's output schema (draft-07 unless it names 2020-12), compiled once per schema text. */
function validatorFor(schema: Record<string, unknown>): ReturnType<AjvLike['compile']> {
  const key = JSON.stringify(schema);
  let v = compiled.get(key);
  if (!v) {
    const modern = typeof schema.$schema === 'string' && /2020-12|2019-09/.test(schema.$schema);
    const ajv = modern ? (draft2020 ??= new (ctor(Ajv2020Module))({ strict: false, allErrors: true, ...LINEAR_AJV_OPTIONS })) : (draft7 ??= new (ctor(AjvModule))({ strict: false, allErrors: true, ...LINEAR_AJV_OPTIONS }));
    try {
      v = ajv.compile(schema);
    } catch (e) {
      throw new McpError(`the tool's output schema cannot be used: ${(e as Error).message}`);
    }
    if (compiled.size > 256) compiled.clear();
    compiled.set(key, v);
  }
  return v;
}

/**
 * `value` (a server's parsed reply) when it is nested at most MAX_JSON_DEPTH levels deep, else an
 * McpError naming the bound. JSON.parse reads any depth, but JSON.stringify (the journal, the
 * trace) overflows the stack a few thousand levels down, so a deeper reply is refused here, at the
 * boundary, by a walk that keeps its own stack.
 */
export function boundedDepth<T>(value: T, what: string): T {
  if (nestedDeeperThan(value, MAX_JSON_DEPTH)) throw new McpError(`${what} is nested more than ${MAX_JSON_DEPTH} levels deep, the most a value may be (MAX_JSON_DEPTH): refused`);
  return value;
}

/** The most of a failed tool's text its error message carries (the message is journaled and shown in events). */
export const TOOL_ERROR_TEXT_MAX = 4096;

function clipMessage(text: string): string {
  return text.length <= TOOL_ERROR_TEXT_MAX ? text : `${text.slice(0, TOOL_ERROR_TEXT_MAX)}… (${(text.length - TOOL_ERROR_TEXT_MAX).toLocaleString('en-US')} more characters)`;
}

/** The text of a reply's text blocks, joined by newlines. */
export function replyText(result: CallToolResult): string {
  return (result.content ?? [])
    .filter((b): b is { type: 'text'; text: string } => b.type === 'text' && typeof (b as { text?: unknown }).text === 'string')
    .map((b) => b.text)
    .join('\n');
}

/**
 * The value a `tools/call` reply binds to. `outputSchema`: the tool's, as absorbed; the reply's
 * `structuredContent` must conform to it. Throws McpToolError (the tool failed) or McpError (the reply is invalid).
 */
export function toolReply(tool: string, result: CallToolResult, outputSchema?: Record<string, unknown>): unknown {
  if (result.isError === true) throw new McpToolError(`the MCP tool ${tool} failed: ${clipMessage(replyText(result)) || 'no message'}`);
  if (outputSchema) {
    const structured = result.structuredContent;
    if (structured === undefined) throw new McpError(`the MCP tool ${tool} has an output schema but its reply has no structuredContent`);
    const validate = validatorFor(outputSchema);
    if (!validate(structured)) {
      const why = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '(the reply)'} ${e.message ?? 'is invalid'}`).join('; ');
      throw new McpError(`the reply of the MCP tool ${tool} does not match its output schema: ${why}`);
    }
    return structured;
  }
  return {
    text: replyText(result),
    content: result.content ?? [],
    ...(result.structuredContent !== undefined ? { structured: result.structuredContent } : {}),
  };
}
