// Repairs of what models commonly get wrong around JSON, each recorded so the trace shows it:
// a Markdown code fence, prose before or after the JSON, trailing commas. What cannot be repaired
// is reported as a validation issue (and fed back to the model), never guessed at.

export interface Parsed {
  ok: boolean;
  value?: unknown;
  repairs: string[];
  /** why the text is not JSON (when !ok) */
  error?: string;
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

const FENCE = /```[ \t]*([A-Za-z0-9_-]*)[ \t]*\r?\n?([\s\S]*?)\r?\n?[ \t]*```/;

/** The balanced JSON object or array that starts at the first `{` or `[`, or null. */
function extractJson(text: string): { start: number; end: number } | null {
  for (let start = 0; start < text.length; start++) {
    const ch = text[start];
    if (ch !== '{' && ch !== '[') continue;
    const end = balancedEnd(text, start);
    if (end > 0) return { start, end };
  }
  return null;
}

function balancedEnd(text: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{') stack.push('}');
    else if (ch === '[') stack.push(']');
    else if (ch === '}' || ch === ']') {
      if (stack.pop() !== ch) return -1;
      if (stack.length === 0) return i + 1;
    }
  }
  return -1;
}

/** Removes commas that directly precede `}` or `]` (outside strings). Returns the text and the count. */
function removeTrailingCommas(text: string): { text: string; count: number } {
  let out = '';
  let count = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      out += ch;
      if (ch === '\\' && i + 1 < text.length) out += text[++i];
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    if (ch === ',') {
      let j = i + 1;
      while (j < text.length && /\s/.test(text[j])) j++;
      if (text[j] === '}' || text[j] === ']') {
        count++;
        continue;
      }
    }
    out += ch;
  }
  return { text: out, count };
}

/**
 * Parses a model's raw reply as JSON, repairing a code fence, surrounding prose and trailing
 * commas. `plainStringOk`: the expected value is a string, so a reply that is not JSON at all
 * may be taken as that string (recorded as a repair).
 */
export function parseReply(raw: string, plainStringOk = false): Parsed {
  const repairs: string[] = [];
  let text = raw.replace(/^\uFEFF/, '').trim();
  if (text.length === 0) return { ok: false, repairs, error: 'the reply is empty' };
  let r = tryParse(text);
  if (r.ok) return { ok: true, value: r.value, repairs };

  const fence = FENCE.exec(text);
  if (fence) {
    text = fence[2].trim();
    repairs.push(`removed a Markdown code fence${fence[1] ? ` (\`\`\`${fence[1]})` : ''}`);
    r = tryParse(text);
    if (r.ok) return { ok: true, value: r.value, repairs };
  }

  const span = extractJson(text);
  if (span && (span.start > 0 || span.end < text.length)) {
    const before = text.slice(0, span.start).trim().length;
    const after = text.slice(span.end).trim().length;
    text = text.slice(span.start, span.end);
    if (before || after) repairs.push(`removed text around the JSON (${before} characters before, ${after} after)`);
    r = tryParse(text);
    if (r.ok) return { ok: true, value: r.value, repairs };
  }

  const commas = removeTrailingCommas(text);
  if (commas.count > 0) {
    r = tryParse(commas.text);
    if (r.ok) {
      repairs.push(`removed ${commas.count} trailing comma${commas.count === 1 ? '' : 's'}`);
      return { ok: true, value: r.value, repairs };
    }
  }

  if (plainStringOk && !span) {
    repairs.push('took a reply that is not JSON as the string value');
    return { ok: true, value: raw.trim(), repairs };
  }
  return { ok: false, repairs, error: `the reply is not JSON (${r.ok ? '' : r.error})` };
}

// ---- what a re-ask sends back

/** The most characters of a rejected reply a re-ask quotes (docs/reliability.md, *Bounds*). */
export const REJECTED_EXCERPT_CHARS = 2000;
/** The most validation problems a re-ask lists; the rest are counted. */
export const REJECTED_ISSUES = 20;

/**
 * A rejected reply as a re-ask quotes it: whole when short, else its head and its tail around a
 * marker that counts what was left out, `max` characters in all. A model that wrote 40,000
 * characters of digits is not sent them back (its context would not hold them, and it would read
 * them as the start of its next reply); the head shows how it began, the tail where it went wrong.
 */
export function rejectedExcerpt(raw: string, max = REJECTED_EXCERPT_CHARS): string {
  if (raw.length <= max) return raw;
  const marker = (n: number) => `\n[… ${n} characters of the rejected reply left out …]\n`;
  const room = max - marker(raw.length).length;
  let head = Math.floor(room * 0.75);
  let tail = room - head;
  // never cut a surrogate pair in two
  if (/[\uD800-\uDBFF]/.test(raw[head - 1] ?? '')) head--;
  if (/[\uDC00-\uDFFF]/.test(raw[raw.length - tail] ?? '')) tail--;
  return raw.slice(0, head) + marker(raw.length - head - tail) + raw.slice(raw.length - tail);
}

/** The first REJECTED_ISSUES problems, and one more entry that counts the rest. */
export function rejectedIssues<T extends { path: string; message: string }>(issues: readonly T[]): { path: string; message: string }[] {
  if (issues.length <= REJECTED_ISSUES) return issues.slice();
  return [...issues.slice(0, REJECTED_ISSUES), { path: '', message: `and ${issues.length - REJECTED_ISSUES} more problems like these` }];
}

type Schema = Record<string, unknown>;

/**
 * A literal field a reply left out, filled in where the schema admits one value only: a struct's
 * discriminator (`kind: "approve"`), which models often drop since it says nothing new. Under a
 * union, only when exactly one member fits the value once its literals are filled. Each fill is a
 * repair (`filled in the literal field /value/kind: "approve"`); what cannot be decided is left to
 * the validator, which names the members.
 */
export function fillLiterals(
  schema: Schema,
  value: unknown,
  fits: (member: Schema, value: unknown) => boolean,
  resolve: (node: Schema) => Schema,
  path = '/value',
  depth = 0,
): { value: unknown; repairs: string[] } {
  const repairs: string[] = [];
  const fill = (node: Schema, v: unknown, at: string, d: number): unknown => {
    if (d > 200 || !v || typeof v !== 'object') return v;
    const s = resolve(node);
    if (Array.isArray(v)) {
      const items = s.items && typeof s.items === 'object' ? (s.items as Schema) : undefined;
      return items ? v.map((x, i) => fill(items, x, `${at}/${i}`, d + 1)) : v;
    }
    if (Array.isArray(s.anyOf)) {
      const members = s.anyOf as Schema[];
      if (members.some((m) => fits(m, v))) return v;
      const candidates = members
        .map((m) => {
          const trial = fillLiterals(m, v, fits, resolve, at, d + 1);
          return { m, trial };
        })
        .filter((c) => c.trial.repairs.length > 0 && fits(c.m, c.trial.value));
      if (candidates.length !== 1) return v;
      repairs.push(...candidates[0].trial.repairs);
      return candidates[0].trial.value;
    }
    if (s.type !== 'object' || !s.properties) return v;
    const obj = { ...(v as Record<string, unknown>) };
    const props = s.properties as Record<string, Schema>;
    const required = Array.isArray(s.required) ? (s.required as string[]) : [];
    for (const [k, p] of Object.entries(props)) {
      if (!(k in obj)) {
        if (required.includes(k) && p && 'const' in p) {
          obj[k] = p.const;
          repairs.push(`filled in the literal field ${at}/${k}: ${JSON.stringify(p.const)}`);
        }
      } else obj[k] = fill(p, obj[k], `${at}/${k}`, d + 1);
    }
    return obj;
  };
  const out = fill(schema, value, path, depth);
  return { value: out, repairs };
}
