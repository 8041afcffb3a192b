// A served tool's annotations (MCP `readOnlyHint`, `idempotentHint`, `destructiveHint`,
// `openWorldHint`), derived from what its closure can do, as far as the source shows it.
//
// The closure's body is walked, and so are the bodies of the closures it calls by a name the file
// binds with `let` (transitively, each once). What it reaches is sorted by host tool:
//   - `call("fs_read" | "fs_list" | "fs_exists" | "env_get" | "time_*" | "math_random" | "http_get"
//     | "mcp_tools" | "mcp_resources" | "mcp_read", ...)`, `infer`, pure tools: read only;
//   - `call("fs_write", ...)` replaces a file (destructive, idempotent: the same call leaves the same file);
//   - `call("fs_append", ...)` adds (not destructive, not idempotent);
//   - `call("http_request" | "http_post" | "mcp_call", ...)`, a tool named by a value that is not a
//     string literal, a call of a `use`d module's closure or of any closure value the file does not
//     bind by name: unknown, so none of the hopeful hints is claimed (the spec's defaults:
//     not read-only, destructive, not idempotent).
// A hint is a hint (the spec says a client must not trust it for a decision): a claim is made only
// where every path the walk sees is read-only; anything it cannot see makes it say nothing.
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { Closure, Expr, Node } from '../../syntax/ast.js';
import { walk } from '../../syntax/walk.js';

const READ_ONLY_TOOLS = new Set(['fs_read', 'fs_list', 'fs_exists', 'env_get', 'time_now_ms', 'time_now_iso', 'math_random', 'http_get', 'mcp_tools', 'mcp_resources', 'mcp_read', 'progress', 'mcp_elicit', 'mcp_sample', 'mcp_roots']);
const OPEN_WORLD_TOOLS = new Set(['http_get', 'http_post', 'http_request', 'mcp_call', 'mcp_tools', 'mcp_resources', 'mcp_read']);

interface Reach {
  unknown: boolean;
  writes: boolean;
  appends: boolean;
  openWorld: boolean;
}

/** The hints `closure` earns (see the header); `lets`: the file's top-level `let` bindings. */
export function annotationsOf(closure: Closure, lets: ReadonlyMap<string, Expr>): ToolAnnotations {
  const reach: Reach = { unknown: false, writes: false, appends: false, openWorld: false };
  const seen = new Set<Node>([closure]);
  const bodies: Node[] = [closure.body];
  while (bodies.length > 0) {
    const body = bodies.pop()!;
    walk(body, (node) => {
      if (node.kind === 'Infer') reach.openWorld = true;
      if (node.kind === 'CallBuiltin') {
        const target = node.target;
        if (target.kind !== 'String') reach.unknown = true;
        else if (target.value === 'fs_write') reach.writes = true;
        else if (target.value === 'fs_append') reach.appends = true;
        else if (OPEN_WORLD_TOOLS.has(target.value)) {
          reach.openWorld = true;
          if (!READ_ONLY_TOOLS.has(target.value)) reach.unknown = true;
        }
      }
      if (node.kind === 'Call' || node.kind === 'MethodCall') {
        const callee = node.kind === 'Call' ? node.callee : undefined;
        const bound = callee?.kind === 'Identifier' ? lets.get(callee.name) : undefined;
        if (bound?.kind === 'Closure') {
          if (!seen.has(bound)) {
            seen.add(bound);
            bodies.push(bound.body);
          }
        } else if (!(callee?.kind === 'Identifier' && isLocalClosure(callee.name, body))) reach.unknown = true;
      }
      if (node.kind === 'Use' || node.kind === 'UseSchema' || node.kind === 'Spawn' || node.kind === 'SpawnEach') reach.unknown = true;
    });
  }
  const readOnly = !reach.unknown && !reach.writes && !reach.appends;
  return {
    readOnlyHint: readOnly,
    destructiveHint: !readOnly && (reach.unknown || reach.writes),
    idempotentHint: readOnly || (!reach.unknown && !reach.appends),
    openWorldHint: reach.openWorld || reach.unknown,
  };
}

/** Whether `name` is bound to a closure literal inside `body` (a helper the walk also visits). */
function isLocalClosure(name: string, body: Node): boolean {
  let found = false;
  walk(body, (node) => {
    if (node.kind === 'Let' && node.name.name === name && node.value.kind === 'Closure') found = true;
    return !found;
  });
  return found;
}

