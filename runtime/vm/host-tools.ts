// The standard library's host tools as the VM sees them (runtime/effects/tools.ts holds their
// logic). Pure ones (regex, math, time formatting) run inline like the Turn v1 tools; effect
// tools (files, HTTP, environment, clock, random) make the process yield an effect the host
// performs with the run's capabilities and vault — the VM never does I/O and never sees a secret.
import { STD_TOOLS, mintHandle } from '../effects/tools.js';
import { plainCost } from './alloc.js';
import type { Tool } from './tools.js';
import { IdentityVal, PidVal, VMError, VecVal, containsIdentity, fromPlain, plainTree, render, unwrap, type Value } from '../values/index.js';

export type { ToolRequest } from '../ports/host.js';

export const EFFECT_TOOL_NAMES: ReadonlySet<string> = new Set(
  Object.entries(STD_TOOLS)
    .filter(([, t]) => t.effect)
    .map(([name]) => name),
);

/**
 * A Turn value as a plain argument for a host tool. An identity becomes the host's handle for it
 * (`mintHandle`: the only way one is made, so a map of the same shape is never taken for one).
 * Nested more than MAX_JSON_DEPTH levels is a VMError, as for json_stringify (the walk is values'
 * plainTree).
 */
export function toHostArg(v: Value): unknown {
  return plainTree(v, (x) => {
    if (x instanceof IdentityVal) return mintHandle(x);
    if (x === null || typeof x === 'number' || typeof x === 'string' || typeof x === 'boolean') return x;
    if (x instanceof VecVal) return x.items.slice();
    if (x instanceof PidVal) return { pid: x.id };
    return render(x);
  });
}

/**
 * Refuses an identity handle where an effect tool would send, store or show it as data (issue 26,
 * point 6): a knowledge object's fields, an MCP tool's arguments, a file's content, a request's
 * body. Only the tool's credential argument (`auth` of http_request and mcp_*, `cap` of fs_*) may be
 * a handle, and only the handle itself.
 */
export function refuseHandleData(name: string, args: Value[]): void {
  const tool = STD_TOOLS[name];
  const credential = tool?.effect ? tool.credential : undefined;
  for (let i = 0; i < args.length; i++) {
    if (i === credential && unwrap(args[i]) instanceof IdentityVal) continue;
    if (!containsIdentity(args[i])) continue;
    const hint = credential === undefined ? `${name} takes no identity` : `only its first argument takes one, as itself`;
    throw new VMError(`an identity handle cannot be sent as data to ${name} (argument ${i + 1}): it is the authority to use a secret, not a value; ${hint}`);
  }
}

/** The capability category an effect tool is checked under (agents grant these by name). */
export function effectCategory(name: string): string {
  const tool = STD_TOOLS[name];
  return tool?.effect ? tool.category : 'effects';
}

/** The pure standard-library tools, in the shape of the VM's inline tools. */
export const PURE_STD_TOOLS: Record<string, Tool> = Object.fromEntries(
  Object.entries(STD_TOOLS)
    .filter(([, t]) => !t.effect)
    .map(([name, t]) => [
      name,
      (args: Value[], env) => {
        if (args.some(containsIdentity)) throw new VMError(`an identity handle cannot be passed to ${name}`);
        let plain: unknown;
        try {
          plain = (t.run as (...a: unknown[]) => unknown)(...args.map(toHostArg));
        } catch (e) {
          throw new VMError(e instanceof Error ? e.message : String(e));
        }
        env.alloc(plainCost(plain));
        return fromPlain(plain);
      },
    ]),
);
