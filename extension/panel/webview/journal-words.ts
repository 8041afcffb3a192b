// The journal in plain words (issue 44): each journaled step as a phrase a person reads, in place of
// the implementation's kind and name (`schedule effect-first {"index":0}` is "the 1st ready effect
// went first"), and a grant as what allowed it ("model calls: no budget, allowed in every run").
// A table from journal kinds (and host tool names) to phrases; anything not in it keeps its kind and
// name, so a new kind is still shown. No DOM (tested in test/extension/journal-words.test.ts).
import type { JournalStepView } from '../../protocol/panel.js';

/** Effects by host tool name (runtime/effects/tools.ts). */
const TOOLS: Readonly<Record<string, string>> = {
  http_request: 'HTTP request', http_get: 'HTTP GET', http_post: 'HTTP POST',
  fs_read: 'read a file', fs_write: 'wrote a file', fs_append: 'appended to a file', fs_list: 'listed a folder', fs_exists: 'checked a file exists',
  env_get: 'read an environment variable', time_now_ms: 'read the clock', time_now_iso: 'read the clock', math_random: 'drew a random number',
  mcp_call: 'called an MCP tool', mcp_tools: 'listed an MCP server\'s tools', mcp_resources: 'listed MCP resources', mcp_read: 'read an MCP resource',
  mcp_prompts: 'listed MCP prompts', mcp_prompt: 'got an MCP prompt', mcp_templates: 'listed MCP resource templates',
  mcp_subscribe: 'subscribed to an MCP resource', mcp_unsubscribe: 'unsubscribed from an MCP resource', mcp_updates: 'read MCP resource updates',
  media_file: 'read a media file', media_url: 'fetched media', media_base64: 'decoded media',
  __suspend: 'suspended, waiting for a resume',
};

/** Steps by journal kind; `name` is the step's name (a model reply's type, an agent...). */
const KINDS: Readonly<Record<string, (name: string) => string>> = {
  infer: (name) => `model reply (${name})`,
  tool: (name) => TOOLS[name] ?? `effect ${name}`,
  clock: () => 'read the clock',
  random: () => 'drew a random number',
  timer: () => 'a timer fired',
  schedule: (name) => (name === 'effect-first' ? 'which ready effect went first' : `scheduling: ${name}`),
  suspend: () => 'suspended, waiting for a resume',
  suspended: () => 'suspended',
  migrate: () => 'moved to the current code',
  decision: (name) => (name === 'retry' ? 'a person said: run it again' : name === 'ok' ? 'a person gave the result' : name === 'error' ? 'a person gave the error' : `a person decided: ${name}`),
  approval: (name) => `asked for approval (${name})`,
  grant: (name) => `agent ${name} was granted its capabilities`,
  spawn: (name) => (name ? `started a process (${name})` : 'started a process'),
  name: (name) => `a process named itself ${name}`,
  output: () => 'printed a line',
  note: (name) => (name === 'reprint' ? 'printed again on resume' : `note: ${name}`),
  refusal: () => 'an effect was refused',
  refused: () => 'an effect was refused',
  fatal: () => 'the run failed',
};

/** What a step did, in words. */
export function stepWords(s: Pick<JournalStepView, 'kind' | 'name'>): string {
  const phrase = Object.hasOwn(KINDS, s.kind) ? KINDS[s.kind](s.name) : null;
  return phrase ?? `${s.kind} ${s.name}`;
}

const ordinal = (n: number): string => `${n}${n % 10 === 1 && n % 100 !== 11 ? 'st' : n % 10 === 2 && n % 100 !== 12 ? 'nd' : n % 10 === 3 && n % 100 !== 13 ? 'rd' : 'th'}`;

/** A step's value in words where its JSON says nothing to a person (`{"index":0}` of effect-first); else the value as it is. */
export function valueWords(s: Pick<JournalStepView, 'kind' | 'name' | 'value'>): string {
  if (s.kind === 'schedule' && s.name === 'effect-first') {
    try {
      const v = JSON.parse(s.value) as { index?: unknown } | null;
      if (typeof v?.index === 'number' && Number.isSafeInteger(v.index) && v.index >= 0) return `the ${ordinal(v.index + 1)} ready effect`;
    } catch {
      // not JSON: shown as it is
    }
  }
  return s.value;
}

/** Capabilities by name, as the grant's first word says them. */
const CAPABILITIES: Readonly<Record<string, string>> = {
  model: 'model calls', network: 'network', read: 'file reads', write: 'file writes', env: 'environment', run: 'programs', clock: 'clock', random: 'randomness', knowledge: 'knowledge store',
};

/**
 * A grant as `describeGrant` writes it — `CAPABILITY SCOPE (FROM)[ with IDENTITY]`, e.g. `model no
 * budget (every run)` — in words: `model calls: no budget, allowed in every run`. Read with
 * indexOf (the text carries program data: hosts, paths), never a backtracking pattern.
 */
export function grantWords(grant: string): string {
  const text = grant.slice(0, 1000);
  const space = text.indexOf(' ');
  if (space < 0) return text;
  const cap = text.slice(0, space);
  const withAt = text.lastIndexOf(' with ');
  const head = withAt >= 0 ? text.slice(0, withAt) : text;
  const identity = withAt >= 0 ? `, as ${text.slice(withAt + 6)}` : '';
  const open = head.lastIndexOf(' (');
  if (open < space || !head.endsWith(')')) return text;
  const scope = head.slice(space + 1, open);
  const from = head.slice(open + 2, -1);
  const source = from === 'every run' ? 'allowed in every run' : `granted by ${from}`;
  return `${CAPABILITIES[cap] ?? cap}: ${scope}, ${source}${identity}`;
}
