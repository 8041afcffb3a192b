// Agents (seed 003, issue 26 point 1): a lasting subject with an identity, memory shared by all its
// computations, a policy version, its capabilities and a message queue. An agent is a detached
// process (its pid and name are its identity, its mailbox its queue) whose memory map is shared by
// reference with every computation it starts: `remember`/`recall` in any of them read and write
// the agent's memory, one at a time in the scheduler's order (which a durable run journals and
// replays), and a snapshot keeps the sharing (one object table, runtime/store/serialize.ts).
// A computation receives the policy current when it started as its argument, so a policy update
// reaches new computations while running ones keep theirs.
//
// Capabilities: the agent's `capabilities` name the effect categories its computations may use
// (`network`, `files`, `env`, `clock`, `random`, `knowledge`, `mcp`, `model`). Every process the
// agent or its computations start is bound by them; an effect outside them is a Turn error at its
// line in the process that asks (so an uncaught one fails that computation, which its waiter sees
// as a ChildError), before the host is asked. Within them the run's own grants still decide
// (hosts, roots, budgets, approval): an agent can only narrow what the run has.
import { EFFECT_CATEGORIES } from '../effects/tools.js';
import { ClosureVal, PidVal, VMError, typeName, unwrap, type Value } from '../values/index.js';
import type { ActorRuntime } from './actors.js';
import type { AgentGrants, Process } from './process.js';

/** What an agent may grant: the effect tools' categories and model calls. */
export const AGENT_CAPABILITIES: readonly string[] = [...EFFECT_CATEGORIES, 'model'];

/**
 * An effect an agent's capabilities do not cover, refused by the VM before the host is asked. It is
 * raised as the error a refused grant raises, so the program catches both the same way: an
 * `EffectError` for an effect tool (as when the run's capabilities refuse it), an `InferError` for
 * `infer` (as when the run's model grant or budget refuses the call).
 */
export class EffectRefused extends VMError {
  constructor(
    message: string,
    /** the effect tool refused, or the type of the refused `infer` */
    readonly target: { tool: string } | { infer: string },
  ) {
    super(message);
  }

  /** The error value the program catches, at `line`. */
  errorValue(line: number): Map<string, Value> {
    if ('tool' in this.target) {
      return new Map<string, Value>([['type', 'EffectError'], ['tool', this.target.tool], ['message', this.message], ['line', line]]);
    }
    return new Map<string, Value>([
      ['type', 'InferError'],
      ['message', `infer ${this.target.infer}: the model call was refused: ${this.message}`],
      ['line', line],
      ['reason', 'provider'],
      ['infer', this.target.infer],
      ['attempts', 0],
      ['reply', null],
      ['errors', []],
    ]);
  }
}

/** Refuses an effect of `category` (an effect tool, or `infer` of a type) to a process bound by an agent's grants that lack it. */
export function refuseUngranted(grants: AgentGrants, target: { tool: string } | { infer: string }, category: string): void {
  if (grants.categories.includes(category)) return;
  const has = grants.categories.length === 0 ? 'none' : grants.categories.join(', ');
  const what = 'tool' in target ? target.tool : `infer ${target.infer}`;
  throw new EffectRefused(`${what} needs the "${category}" capability, which agent "${grants.agent}" was not granted (its capabilities: ${has})`, target);
}

/** The memory key an agent's record lives under (identity, policy and version, capabilities). */
export const AGENT_KEY = '__agent';

export interface AgentRuntime extends ActorRuntime {
  /** starts `closure(args)` as a process owned by the runtime (`detach`) or as a child of `parent` */
  startProcess(parent: Process, closure: ClosureVal, args: Value[], detached: boolean): Process;
  /** an agent was granted `categories` (a durable run journals it; a migration may not widen it) */
  agentGranted(agent: Process, name: string, categories: readonly string[]): void;
}

export type AgentTool = (rt: AgentRuntime, p: Process, args: Value[]) => Value;

function record(p: Process, tool: string): Map<string, Value> {
  const r = p.hasMemory() ? p.memory.get(AGENT_KEY) : undefined;
  if (!(r instanceof Map)) throw new VMError(`${tool} runs only in an agent or one of its computations (start one with call("agent", {...}, handler))`);
  return r;
}

function closureArg(tool: string, v: Value): ClosureVal {
  const c = unwrap(v);
  if (!(c instanceof ClosureVal)) throw new VMError(`${tool} expects a closure, got ${typeName(c)}`);
  return c;
}

export const AGENT_TOOLS: Record<string, AgentTool> = {
  /**
   * `agent({"name": Str, "policy": Any, "capabilities": List}, handler)`: starts the agent — a
   * detached process running `handler()` — and returns its pid
   */
  agent(rt, p, args) {
    if (args.length !== 2) throw new VMError(`agent expects a settings map and a handler closure, got ${args.length} arguments`);
    const settings = unwrap(args[0]);
    if (!(settings instanceof Map)) throw new VMError(`agent expects a map like {"name": "lab", "policy": "v1", "capabilities": ["http"]}, got ${typeName(settings)}`);
    for (const k of settings.keys()) if (k !== 'name' && k !== 'policy' && k !== 'capabilities') throw new VMError(`agent: unknown setting "${k}" (name, policy, capabilities)`);
    const name = unwrap(settings.get('name') ?? null);
    if (typeof name !== 'string' || name === '') throw new VMError(`agent: "name" must be a non-empty Str, got ${typeName(name)}`);
    const caps = unwrap(settings.get('capabilities') ?? []);
    if (!Array.isArray(caps) || !caps.every((c) => typeof unwrap(c) === 'string')) throw new VMError('agent: "capabilities" must be a List of Str');
    const categories = caps.map((c) => unwrap(c) as string);
    for (const c of categories) {
      if (!AGENT_CAPABILITIES.includes(c)) throw new VMError(`agent: unknown capability "${c}" (known: ${AGENT_CAPABILITIES.join(', ')})`);
      if (p.grants !== null && !p.grants.categories.includes(c)) throw new VMError(`agent: cannot grant "${c}", which agent "${p.grants.agent}" starting it was not granted`);
    }
    const handler = closureArg('agent', args[1]);
    const agent = rt.startProcess(p, rt.copy(handler) as ClosureVal, [], true);
    agent.grants = { agent: name, categories };
    rt.agentGranted(agent, name, categories);
    agent.memory = new Map<string, Value>([[AGENT_KEY, new Map<string, Value>([
      ['name', name],
      ['pid', new PidVal(agent.id)],
      ['policy', rt.copy(settings.get('policy') ?? null)],
      ['version', 1],
      ['capabilities', [...categories]],
    ])]]);
    return new PidVal(agent.id);
  },
  /** `agent_spawn(f)`: a computation of the caller's agent, `f(policy)`, sharing its memory; returns its pid */
  agent_spawn(rt, p, args) {
    if (args.length !== 1) throw new VMError(`agent_spawn expects one closure, got ${args.length} arguments`);
    const rec = record(p, 'agent_spawn');
    const f = closureArg('agent_spawn', args[0]);
    const child = rt.startProcess(p, rt.copy(f) as ClosureVal, [rt.copy(rec.get('policy') ?? null)], false);
    child.memory = p.memory; // shared, by reference
    return new PidVal(child.id);
  },
  /** `agent_policy(p)`: the agent's policy from now on (new computations get it); returns the new version */
  agent_policy(rt, p, args) {
    if (args.length !== 1) throw new VMError(`agent_policy expects the new policy, got ${args.length} arguments`);
    const rec = record(p, 'agent_policy');
    const version = (rec.get('version') as number) + 1;
    rec.set('policy', rt.copy(args[0]));
    rec.set('version', version);
    return version;
  },
  /** `agent_info()`: the agent's name, pid, current policy and version, and capabilities */
  agent_info(rt, p, args) {
    if (args.length !== 0) throw new VMError(`agent_info expects no arguments, got ${args.length}`);
    return rt.copy(record(p, 'agent_info'));
  },
};
