// Second lines for the checker's errors at a newcomer's slips: a host tool called like a function
// (`echo("hi")`), another language's printing (`print(...)`), a list's length read as a field
// (`xs.length`). Each says what Turn writes instead.
import { isHostTool } from './host-tools.js';

const PRINTING = new Set(['print', 'println', 'printf', 'puts', 'log', 'console']);
const LENGTH = new Set(['length', 'size', 'len', 'count']);

/** The hint for calling `name(...)` when no such name is bound, if there is one. */
export function undefinedCalleeHint(name: string): string | undefined {
  if (isHostTool(name)) return `host tools are called by name: \`call("${name}", ...)\``;
  if (PRINTING.has(name)) return 'Turn prints with `call("echo", ...)`';
  return undefined;
}

/** The hint for reading `.name` of a list or a string, if there is one. */
export function lengthHint(name: string, target: string): string | undefined {
  return LENGTH.has(name) ? `the length of a list, a map or a string is \`call("len", ${target})\`` : undefined;
}
