// `ask T { prompt }` on a terminal (issue 43): the question, where it is asked, the type expected,
// then one line of JSON read back. A refused answer is asked again with its errors (host.ts); the
// end of input cancels (the program's AskError), and so does the run's stop.
import { cleanText } from '../mcp/elicitation.js';
import { formatIssue } from '../infer/validate.js';
import { checkAnswerText } from './answer.js';
import type { AskPort, AskQuestion } from '../ports/ask.js';

/** The AskPort of a terminal: writes to `output`, reads lines from `input`. */
export function terminalAsk(input: NodeJS.ReadableStream, output: NodeJS.WritableStream): AskPort {
  return async (q: AskQuestion) => {
    const readline = await import('node:readline');
    const rl = readline.createInterface({ input, output });
    try {
      if (q.attempt === 1) {
        output.write(`turn: a question at ${q.location.path}:${q.location.line} (ask ${q.typeName}):\n`);
        for (const line of cleanText(q.prompt).split('\n')) output.write(`  ${line}\n`);
        output.write(`  expected: ${describeType(q.schema)}\n`);
      } else {
        output.write(`turn: that answer is not a ${q.typeName}:\n`);
        for (const i of (q.errors ?? []).slice(0, 8)) output.write(`  ${cleanText(formatIssue(i))}\n`);
      }
      for (;;) {
        const line = await readLine(rl, 'answer (JSON)> ', q.signal);
        if (line === undefined) throw new Error(`the question at ${q.location.path}:${q.location.line} was not answered (the input ended)`);
        // a line that is not even JSON is asked for again here; the type is checked by the host
        const parsed = checkAnswerText({}, line.trim());
        if (parsed.ok) return parsed.value;
        output.write(`  ${parsed.message}\n`);
      }
    } finally {
      rl.close();
    }
  };
}

function readLine(rl: import('node:readline').Interface, prompt: string, signal?: AbortSignal): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason instanceof Error ? signal.reason : new Error('the question was cancelled'));
    const onAbort = () => reject(signal?.reason instanceof Error ? signal.reason : new Error('the question was cancelled'));
    signal?.addEventListener('abort', onAbort, { once: true });
    const onClose = () => resolve(undefined);
    rl.once('close', onClose);
    rl.question(prompt, (a) => {
      signal?.removeEventListener('abort', onAbort);
      rl.off('close', onClose);
      resolve(a);
    });
  });
}

/** A JSON Schema as a short type a person reads: `{ decision: "approve" | "deny", note?: Str }`. */
export function describeType(schema: unknown, depth = 0): string {
  if (depth > 3 || schema === null || typeof schema !== 'object') return 'any';
  const s = schema as Record<string, unknown>;
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  if ('const' in s) return JSON.stringify(s.const);
  for (const k of ['anyOf', 'oneOf'] as const) if (Array.isArray(s[k])) return (s[k] as unknown[]).map((m) => describeType(m, depth + 1)).join(' | ');
  if (typeof s.$ref === 'string') return s.$ref.replace(/^#\/\$defs\//, '');
  switch (s.type) {
    case 'string':
      return 'Str';
    case 'number':
    case 'integer':
      return 'Num';
    case 'boolean':
      return 'Bool';
    case 'null':
      return 'Null';
    case 'array':
      return `List<${describeType(s.items, depth + 1)}>`;
    case 'object': {
      const props = s.properties && typeof s.properties === 'object' ? Object.entries(s.properties as Record<string, unknown>) : [];
      const required = new Set(Array.isArray(s.required) ? s.required : []);
      // an optional field's schema allows null too: `note?: Str` says it once
      return `{ ${props.map(([k, v]) => (required.has(k) ? `${k}: ${describeType(v, depth + 1)}` : `${k}?: ${describeType(withoutNull(v), depth + 1)}`)).join(', ')} }`;
    }
    default:
      return 'any';
  }
}

/** An optional field's schema without the `null` member its union has (`T?` is `T | null`). */
function withoutNull(schema: unknown): unknown {
  const s = schema as { anyOf?: unknown[] } | null;
  if (!s || !Array.isArray(s.anyOf)) return schema;
  const rest = s.anyOf.filter((m) => (m as { type?: unknown } | null)?.type !== 'null');
  return rest.length === 1 ? rest[0] : { ...s, anyOf: rest };
}
