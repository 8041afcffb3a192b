// Elicitation (MCP 2025-11-25, `elicitation/create`): a server asks the *operator* a question in
// the middle of a call — a form (a flat JSON Schema of strings, numbers, booleans and enums) or a
// URL to open. The model never answers it. Who does, in order (runtime/run/host.ts wires them):
//   1. an answer given up front under the question's key (`turn run|resume --answer KEY=ANSWER`),
//      or under `*`, which answers every question no keyed answer does (like `--approve all`);
//   2. the run API's programmatic answerer (`RunOptions.elicit`: tests, later the editor's form);
//   3. a person at the terminal, when standard input is one (a prompt per field);
//   4. nobody: in a durable run the call stops and the run waits for `turn resume --answer`; in
//      any other run the server is told `decline`, and an `mcp.elicitation` event says why.
// The key of a question is derived from what it asks (the server, the mode, the message, the
// schema or URL), so the same question asked again by a resumed run finds the answer given for it.
import { sha256Hex } from '../hash.js';
import { McpError } from './server.js';
import { boundedDepth } from './reply.js';

/** What a server asks. `key` names it for `--answer` (stable: the same question has the same key). */
export interface ElicitationQuestion {
  key: string;
  /** the server, as messages name it */
  server: string;
  mode: 'form' | 'url';
  message: string;
  /** form mode: the fields asked for (a flat object schema) */
  requestedSchema?: Record<string, unknown>;
  /** url mode: the page to open, and the server's id of this elicitation */
  url?: string;
  elicitationId?: string;
}

/** The operator's answer, as the server receives it (`content` only with `accept` of a form). */
export interface ElicitationAnswer {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]>;
}

/**
 * A durable run's call met a question nobody could answer now: the server was told `cancel`, and
 * the call's step stays unrun (runtime/mcp/sessions.ts marks this a refusal before sending: the
 * run stops, waiting, and `turn resume --answer KEY=ANSWER` runs the step again with the answer).
 */
export class NeedsAnswer extends McpError {
  override name = 'NeedsAnswer';
  constructor(readonly questions: ElicitationQuestion[]) {
    super(
      `waiting for an answer: ${questions.map(describeQuestion).join('; ')}. ` +
        `Answer with: turn resume RUN --answer ${questions.map(answerExample).join(' --answer ')}`,
    );
  }
}

/** Who answers a question: an answer, or undefined when it has nobody to ask (the next in line then). */
export type Elicitor = (q: ElicitationQuestion, signal?: AbortSignal) => Promise<ElicitationAnswer | undefined>;

/** The most characters of a message or URL a question carries (a server chooses them; they reach the terminal and the journal). */
export const QUESTION_TEXT_MAX = 2048;
/** The most fields a form may ask for, and the most characters one answer text may have. */
export const FORM_FIELDS_MAX = 64;
export const ANSWER_TEXT_MAX = 16 * 1024;

/** A question's key: `q-` and 12 hex digits of the SHA-256 of what it asks. */
export function questionKey(server: string, mode: string, message: string, detail: unknown): string {
  return 'q-' + sha256Hex(JSON.stringify([server, mode, message, detail ?? null])).slice(0, 12);
}

/** Cuts a server's text to QUESTION_TEXT_MAX characters and removes control characters (it is shown on a terminal). */
export function cleanText(text: string): string {
   
  const plain = text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '');
  return plain.length <= QUESTION_TEXT_MAX ? plain : `${plain.slice(0, QUESTION_TEXT_MAX)}…`;
}

/** The question an `elicitation/create` request's params make (throws McpError for a malformed one). */
export function questionOf(server: string, params: Record<string, unknown>): ElicitationQuestion {
  boundedDepth(params, `the question of the MCP server ${server}`);
  const mode = params.mode === 'url' ? 'url' : 'form';
  const message = cleanText(typeof params.message === 'string' ? params.message : '');
  if (mode === 'url') {
    const url = typeof params.url === 'string' ? params.url : '';
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new McpError(`the MCP server ${server} asked to open "${cleanText(url)}", which is not a URL`);
    }
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new McpError(`the MCP server ${server} asked to open a ${parsed.protocol} URL: only http and https pages are shown`);
    const elicitationId = typeof params.elicitationId === 'string' ? cleanText(params.elicitationId) : undefined;
    return { key: questionKey(server, mode, message, parsed.href), server, mode, message, url: cleanText(parsed.href), ...(elicitationId !== undefined ? { elicitationId } : {}) };
  }
  const schema = params.requestedSchema;
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) throw new McpError(`the MCP server ${server} asked a form question without a requestedSchema`);
  const properties = (schema as { properties?: unknown }).properties;
  if (properties !== undefined && (typeof properties !== 'object' || properties === null || Object.keys(properties).length > FORM_FIELDS_MAX)) {
    throw new McpError(`the MCP server ${server} asked a form of more than ${FORM_FIELDS_MAX} fields, or fields that are not a map`);
  }
  return { key: questionKey(server, mode, message, schema), server, mode, message, requestedSchema: schema as Record<string, unknown> };
}

type Field = { type?: unknown; enum?: unknown; oneOf?: unknown; items?: unknown; default?: unknown; title?: unknown; description?: unknown; minimum?: unknown; maximum?: unknown };

/** The fields of a form question, in order, with whether each is required. */
export function formFields(q: ElicitationQuestion): { name: string; field: Field; required: boolean }[] {
  const schema = q.requestedSchema ?? {};
  const props = (schema.properties ?? {}) as Record<string, Field>;
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []);
  return Object.entries(props).map(([name, field]) => ({ name, field: field && typeof field === 'object' ? field : {}, required: required.has(name) }));
}

/** The values a field may take when it is an enumeration (`enum`, or `oneOf` of `const`s; `items` of a multi-select). */
function choices(field: Field): string[] | undefined {
  const of = (f: Field): string[] | undefined => {
    if (Array.isArray(f.enum)) return f.enum.filter((v): v is string => typeof v === 'string');
    if (Array.isArray(f.oneOf)) return f.oneOf.map((o) => (o as { const?: unknown })?.const).filter((v): v is string => typeof v === 'string');
    return undefined;
  };
  return of(field) ?? (field.items && typeof field.items === 'object' ? of(field.items) : undefined);
}

/**
 * An answer's content checked against the question's form: every field named is one the form
 * asks for, of its type (a number for `number`, a whole number for `integer`, one of an enum's
 * values...), and every required field is there (defaults the SDK fills in count). Returns the
 * content; throws McpError naming the field.
 */
export function checkContent(q: ElicitationQuestion, content: unknown): ElicitationAnswer['content'] {
  if (content === undefined || content === null) content = {};
  if (typeof content !== 'object' || Array.isArray(content)) throw new McpError(`the answer to ${q.key} must be a map of the form's fields`);
  const fields = new Map(formFields(q).map((f) => [f.name, f]));
  const out: Record<string, string | number | boolean | string[]> = {};
  for (const [name, v] of Object.entries(content as Record<string, unknown>)) {
    const f = fields.get(name);
    if (!f) throw new McpError(`the answer to ${q.key} has a field "${cleanText(name)}" the question does not ask for (it asks for: ${[...fields.keys()].join(', ') || 'nothing'})`);
    const type = f.field.type;
    const allowed = choices(f.field);
    const bad = (want: string) => new McpError(`the answer to ${q.key}: the field "${name}" must be ${want}`);
    if (type === 'array') {
      if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw bad('a list of strings');
      if (allowed && !v.every((x) => allowed.includes(x))) throw bad(`a list of ${allowed.map((a) => JSON.stringify(a)).join(', ')}`);
      out[name] = v;
    } else if (type === 'number' || type === 'integer') {
      if (typeof v !== 'number' || !Number.isFinite(v) || (type === 'integer' && !Number.isInteger(v))) throw bad(type === 'integer' ? 'a whole number' : 'a number');
      out[name] = v;
    } else if (type === 'boolean') {
      if (typeof v !== 'boolean') throw bad('true or false');
      out[name] = v;
    } else {
      if (typeof v !== 'string' || v.length > ANSWER_TEXT_MAX) throw bad(`a string of at most ${ANSWER_TEXT_MAX} characters`);
      if (allowed && !allowed.includes(v)) throw bad(`one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}`);
      out[name] = v;
    }
  }
  for (const f of fields.values()) {
    if (f.required && !(f.name in out) && f.field.default === undefined) throw new McpError(`the answer to ${q.key} lacks the required field "${f.name}"`);
  }
  return out;
}

/**
 * An answer as the operator writes it (`--answer KEY=ANSWER`, `RunOptions.answers`): `decline`,
 * `cancel`, `accept` (a form's defaults, or a URL opened), or a JSON map — the form's fields,
 * accepted — or `{"action": ..., "content": {...}}`. Throws McpError.
 */
export function parseAnswer(text: string): ElicitationAnswer {
  const t = text.trim();
  if (t === 'accept' || t === 'decline' || t === 'cancel') return { action: t };
  if (t.length > ANSWER_TEXT_MAX) throw new McpError(`an answer is at most ${ANSWER_TEXT_MAX} characters`);
  let v: unknown;
  try {
    v = JSON.parse(t);
  } catch {
    throw new McpError(`an answer is accept, decline, cancel or a JSON map of the form's fields; got ${JSON.stringify(cleanText(t).slice(0, 80))}`);
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new McpError('an answer given as JSON is a map of the form\'s fields, or {"action": ..., "content": {...}}');
  const m = v as Record<string, unknown>;
  if (typeof m.action === 'string' && Object.keys(m).every((k) => k === 'action' || k === 'content')) {
    if (m.action !== 'accept' && m.action !== 'decline' && m.action !== 'cancel') throw new McpError(`an answer's action is accept, decline or cancel, not ${JSON.stringify(m.action)}`);
    return m.content !== undefined ? { action: m.action, content: m.content as ElicitationAnswer['content'] } : { action: m.action };
  }
  return { action: 'accept', content: m as ElicitationAnswer['content'] };
}

/** A question as one line for a message: the server, its text, and the key to answer it under. */
export function describeQuestion(q: ElicitationQuestion): string {
  const what = q.mode === 'url' ? `to open ${q.url}` : `for ${formFields(q).map((f) => f.name).join(', ') || 'a confirmation'}`;
  return `the MCP server ${q.server} asks ${what}: "${q.message}" (question ${q.key})`;
}

/** The answer's shape for a question, as a message shows how to answer it. */
export function answerExample(q: ElicitationQuestion): string {
  if (q.mode === 'url') return `${q.key}=accept (once the page is done) or ${q.key}=decline`;
  const fields = formFields(q).slice(0, 4);
  const sample: Record<string, unknown> = {};
  for (const f of fields) sample[f.name] = f.field.default ?? (f.field.type === 'boolean' ? true : f.field.type === 'number' || f.field.type === 'integer' ? 0 : (choices(f.field)?.[0] ?? '...'));
  return `${q.key}='${JSON.stringify(sample)}' (or ${q.key}=decline)`;
}

/**
 * Asks the person at the terminal: the message, then each field (Enter keeps its default; a
 * required field without one is asked again). An empty answer to the first line, or the end of
 * input, declines. Writes to `output`, reads `input` (a TTY).
 */
export async function askOnTerminal(q: ElicitationQuestion, input: NodeJS.ReadableStream, output: NodeJS.WritableStream, signal?: AbortSignal): Promise<ElicitationAnswer> {
  const readline = await import('node:readline');
  const rl = readline.createInterface({ input, output });
  let closed = false;
  rl.on('close', () => (closed = true));
  const ask = (prompt: string): Promise<string | undefined> =>
    new Promise((resolve, reject) => {
      if (closed) return resolve(undefined);
      const onAbort = () => reject(signal?.reason instanceof Error ? signal.reason : new Error('the question was cancelled'));
      signal?.addEventListener('abort', onAbort, { once: true });
      rl.once('close', () => resolve(undefined));
      rl.question(prompt, (a) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(a);
      });
    });
  try {
    output.write(`turn: ${describeQuestion(q)}\n`);
    if (q.mode === 'url') {
      const a = await ask(`turn: open ${q.url} in a browser, then answer: done? [y/N] `);
      return a !== undefined && /^y(es)?$/i.test(a.trim()) ? { action: 'accept' } : { action: 'decline' };
    }
    const go = await ask('turn: answer it? [y/N] ');
    if (go === undefined || !/^y(es)?$/i.test(go.trim())) return { action: 'decline' };
    const content: Record<string, unknown> = {};
    for (const { name, field, required } of formFields(q)) {
      const opts = choices(field);
      const hint = [typeof field.description === 'string' ? cleanText(field.description) : '', opts ? `one of ${opts.join(', ')}` : '', field.default !== undefined ? `default ${JSON.stringify(field.default)}` : ''].filter(Boolean).join('; ');
      for (;;) {
        const a = await ask(`  ${name}${required ? '' : ' (optional)'}${hint ? ` [${hint}]` : ''}: `);
        if (a === undefined) return { action: 'cancel' };
        const t = a.trim();
        if (t === '') {
          if (required && field.default === undefined) continue;
          break; // the SDK fills the default in
        }
        const v = field.type === 'number' || field.type === 'integer' ? Number(t) : field.type === 'boolean' ? /^(y|yes|true)$/i.test(t) : field.type === 'array' ? t.split(',').map((s) => s.trim()) : t;
        try {
          // this field alone: the required ones not asked yet are not missing
          checkContent({ ...q, requestedSchema: { ...q.requestedSchema, required: [] } }, { [name]: v });
        } catch (e) {
          output.write(`  ${(e as Error).message}\n`);
          continue;
        }
        content[name] = v;
        break;
      }
    }
    return { action: 'accept', content: checkContent(q, content) };
  } finally {
    rl.close();
  }
}
