// The standard library's host tools as the VM sees them (runtime/effects/tools.ts holds their
// logic). Pure ones (regex, math, time formatting) run inline like the Turn v1 tools; effect
// tools (files, HTTP, environment, clock, random) make the process yield an effect the host
// performs with the run's capabilities and vault — the VM never does I/O and never sees a secret.
import { STD_TOOLS } from '../effects/tools.js';
import { plainCost } from './alloc.js';
import type { Tool } from './tools.js';
import { IdentityVal, PidVal, StructVal, Uncertain, VMError, VecVal, fromPlain, render, type Value } from '../values/index.js';

export type { ToolRequest } from '../ports/host.js';

export const EFFECT_TOOL_NAMES: ReadonlySet<string> = new Set(
  Object.entries(STD_TOOLS)
    .filter(([, t]) => t.effect)
    .map(([name]) => name),
);

/** A Turn value as a plain argument for a host tool. An identity stays a handle: kind and name only. */
export function toHostArg(v: Value): unknown {
  if (v instanceof Uncertain) return toHostArg(v.v);
  if (v instanceof IdentityVal) return { kind: v.kind, name: v.name };
  if (Array.isArray(v)) return v.map(toHostArg);
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [k, toHostArg(x)]));
  if (v instanceof StructVal) return Object.fromEntries([...v.fields].map(([k, x]) => [k, toHostArg(x)]));
  if (v instanceof VecVal) return v.items.slice();
  if (v instanceof PidVal) return { pid: v.id };
  if (v === null || typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return v;
  return render(v);
}

/** The pure standard-library tools, in the shape of the VM's inline tools. */
export const PURE_STD_TOOLS: Record<string, Tool> = Object.fromEntries(
  Object.entries(STD_TOOLS)
    .filter(([, t]) => !t.effect)
    .map(([name, t]) => [
      name,
      (args: Value[], env) => {
        if (args.some((a) => a instanceof IdentityVal)) throw new VMError(`an identity handle cannot be passed to ${name}`);
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
