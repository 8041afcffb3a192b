// `@check("name", turn(v) { ... })` predicates, run by the validator where a value enters (an
// `infer` reply, an absorbed operation's reply). A predicate is pure Turn: it sees only the value
// and its own `let`s, and may use literals, arithmetic, comparisons, `and`/`or`/`!`, fields,
// indexing, `if`/`while`/`return`, and the pure tools below through `call("name", ...)`. It runs
// here, on the host side of the VM, because a value is validated before any process sees it; that
// is why it cannot perform effects. The analyzer reports anything else (`predicateProblem`).
import type { Block, Closure, Expr, Span, Stmt } from '../syntax/ast.js';
import { StructVal, equals, truthy, typeName, type Value } from '../values/index.js';

/** The tools a predicate may call: pure functions of their arguments. */
const PURE_TOOLS: Record<string, (args: Value[]) => Value> = {
  len: ([v]) => (typeof v === 'string' ? [...v].length : Array.isArray(v) ? v.length : v instanceof Map ? v.size : fail(`len of a ${typeName(v)}`)),
  type_of: ([v]) => typeName(v),
  str_contains: ([s, t]) => str(s).includes(str(t)),
  str_starts_with: ([s, t]) => str(s).startsWith(str(t)),
  str_ends_with: ([s, t]) => str(s).endsWith(str(t)),
  str_lower: ([s]) => str(s).toLowerCase(),
  str_upper: ([s]) => str(s).toUpperCase(),
  str_trim: ([s]) => str(s).trim(),
  list_contains: ([l, x]) => (Array.isArray(l) ? l.some((y) => equals(y, x)) : fail('list_contains of a non-list')),
  map_has: ([m, k]) => (m instanceof Map ? m.has(str(k)) : m instanceof StructVal ? m.fields.has(str(k)) : fail('map_has of a non-map')),
  keys: ([m]) => (m instanceof Map ? [...m.keys()] : fail('keys of a non-map')),
  to_string: ([v]) => (typeof v === 'string' ? v : JSON.stringify(v)),
  abs: ([x]) => Math.abs(num(x)),
  floor: ([x]) => Math.floor(num(x)),
  ceil: ([x]) => Math.ceil(num(x)),
  round: ([x]) => Math.round(num(x)),
  min: ([a, b]) => Math.min(num(a), num(b)),
  max: ([a, b]) => Math.max(num(a), num(b)),
};

export const PREDICATE_TOOLS = Object.keys(PURE_TOOLS);

/** Steps a predicate may take (loops included) before it is stopped as failing. */
const STEP_LIMIT = 100_000;

class PredicateError extends Error {}

function fail(message: string): never {
  throw new PredicateError(message);
}

function str(v: Value): string {
  return typeof v === 'string' ? v : fail(`expected a Str, got ${typeName(v)}`);
}

function num(v: Value): number {
  return typeof v === 'number' ? v : fail(`expected a Num, got ${typeName(v)}`);
}

/**
 * Runs the predicate on `value`: `true` when it accepts it, else `false` or the error it stopped
 * with (a predicate that fails to run does not accept the value).
 */
export function runPredicate(predicate: Closure, value: Value): { ok: true } | { ok: false; error?: string } {
  const env = new Map<string, Value>([[predicate.params[0]?.name.name ?? '_', value]]);
  const steps = { left: STEP_LIMIT };
  try {
    const r = block(predicate.body, env, steps);
    return r.returned && truthy(r.value) ? { ok: true } : { ok: false };
  } catch (e) {
    if (e instanceof PredicateError) return { ok: false, error: e.message };
    throw e;
  }
}

interface Completion {
  returned: boolean;
  value: Value;
}

function block(b: Block, env: Map<string, Value>, steps: { left: number }): Completion {
  for (const s of b.body) {
    const r = stmt(s, env, steps);
    if (r.returned) return r;
  }
  return { returned: false, value: null };
}

function stmt(s: Stmt, env: Map<string, Value>, steps: { left: number }): Completion {
  if (--steps.left < 0) fail('the predicate took too many steps');
  switch (s.kind) {
    case 'Let':
      env.set(s.name.name, expr(s.value, env, steps));
      return { returned: false, value: null };
    case 'Return':
      return { returned: true, value: s.value ? expr(s.value, env, steps) : null };
    case 'ExprStmt':
      expr(s.expr, env, steps);
      return { returned: false, value: null };
    case 'If':
      if (truthy(expr(s.condition, env, steps))) return block(s.then, env, steps);
      if (s.else) return s.else.kind === 'Block' ? block(s.else, env, steps) : stmt(s.else, env, steps);
      return { returned: false, value: null };
    case 'While':
      while (truthy(expr(s.condition, env, steps))) {
        const r = block(s.body, env, steps);
        if (r.returned) return r;
        if (--steps.left < 0) fail('the predicate took too many steps');
      }
      return { returned: false, value: null };
    default:
      return fail(`a check predicate cannot use ${s.kind}`);
  }
}

function expr(e: Expr, env: Map<string, Value>, steps: { left: number }): Value {
  if (--steps.left < 0) fail('the predicate took too many steps');
  switch (e.kind) {
    case 'Number':
    case 'String':
    case 'Bool':
      return e.value;
    case 'Null':
      return null;
    case 'Identifier':
      if (!env.has(e.name)) fail(`unknown name ${e.name}`);
      return env.get(e.name)!;
    case 'List':
      return e.items.map((x) => expr(x, env, steps));
    case 'Map':
      return new Map(e.entries.map((x) => [x.key, expr(x.value, env, steps)]));
    case 'Unary': {
      const v = expr(e.operand, env, steps);
      return e.op === '!' ? !truthy(v) : -num(v);
    }
    case 'Binary': {
      if (e.op === 'and') return truthy(expr(e.left, env, steps)) ? expr(e.right, env, steps) : false;
      if (e.op === 'or') {
        const l = expr(e.left, env, steps);
        return truthy(l) ? l : expr(e.right, env, steps);
      }
      const l = expr(e.left, env, steps);
      const r = expr(e.right, env, steps);
      switch (e.op) {
        case '==':
          return equals(l, r);
        case '!=':
          return !equals(l, r);
        case '+':
          if (typeof l === 'string' || typeof r === 'string') return String(l) + String(r);
          return num(l) + num(r);
        case '-':
          return num(l) - num(r);
        case '*':
          return num(l) * num(r);
        case '/':
          return num(r) === 0 ? fail('division by zero') : num(l) / num(r);
        case '<':
        case '>':
        case '<=':
        case '>=': {
          const [a, b] = typeof l === 'string' && typeof r === 'string' ? [l, r] : [num(l), num(r)];
          return e.op === '<' ? a < b : e.op === '>' ? a > b : e.op === '<=' ? a <= b : a >= b;
        }
        default:
          return fail(`a check predicate cannot use \`${e.op}\``);
      }
    }
    case 'Member': {
      const t = expr(e.target, env, steps);
      if (t instanceof StructVal) return t.fields.has(e.name.name) ? t.fields.get(e.name.name)! : fail(`${t.type} has no field ${e.name.name}`);
      if (t instanceof Map) return t.get(e.name.name) ?? null;
      return fail(`cannot read .${e.name.name} of a ${typeName(t)}`);
    }
    case 'Index': {
      const t = expr(e.target, env, steps);
      const i = expr(e.index, env, steps);
      if (Array.isArray(t)) {
        const n = num(i);
        return Number.isInteger(n) && n >= 0 && n < t.length ? t[n] : fail(`index ${n} out of range (length ${t.length})`);
      }
      if (t instanceof Map) return t.get(str(i)) ?? null;
      if (typeof t === 'string') return [...t][num(i)] ?? fail(`index ${num(i)} out of range`);
      return fail(`cannot index a ${typeName(t)}`);
    }
    case 'CallBuiltin': {
      const name = e.target.kind === 'String' ? e.target.value : undefined;
      const tool = name !== undefined && Object.hasOwn(PURE_TOOLS, name) ? PURE_TOOLS[name] : undefined;
      if (!tool) return fail(`a check predicate can call only ${PREDICATE_TOOLS.join(', ')}`);
      return tool(e.args.map((a) => expr(a, env, steps)));
    }
    default:
      return fail(`a check predicate cannot use ${e.kind}`);
  }
}

/** The first thing in `predicate` that a check cannot run (see the top of this file), or undefined. */
export function predicateProblem(predicate: Closure): { span: Span; message: string } | undefined {
  let found: { span: Span; message: string } | undefined;
  const report = (span: Span, message: string): void => {
    found ??= { span, message };
  };
  const visitBlock = (b: Block): void => b.body.forEach(visitStmt);
  const visitStmt = (s: Stmt): void => {
    switch (s.kind) {
      case 'Let':
        return visitExpr(s.value);
      case 'Return':
        if (s.value) visitExpr(s.value);
        return;
      case 'ExprStmt':
        return visitExpr(s.expr);
      case 'If':
        visitExpr(s.condition);
        visitBlock(s.then);
        if (s.else) {
          if (s.else.kind === 'Block') visitBlock(s.else);
          else visitStmt(s.else);
        }
        return;
      case 'While':
        visitExpr(s.condition);
        return visitBlock(s.body);
      default:
        return report(s.span, `a check predicate is pure: it cannot use a ${s.kind} statement`);
    }
  };
  const visitExpr = (e: Expr): void => {
    switch (e.kind) {
      case 'Number':
      case 'String':
      case 'Bool':
      case 'Null':
      case 'Identifier':
        return;
      case 'List':
        return e.items.forEach(visitExpr);
      case 'Map':
        return e.entries.forEach((x) => visitExpr(x.value));
      case 'Unary':
        return visitExpr(e.operand);
      case 'Binary':
        if (e.op === '~>') return report(e.span, 'a check predicate cannot use `~>`');
        visitExpr(e.left);
        return visitExpr(e.right);
      case 'Member':
        return visitExpr(e.target);
      case 'Index':
        visitExpr(e.target);
        return visitExpr(e.index);
      case 'CallBuiltin':
        if (e.target.kind !== 'String' || !Object.hasOwn(PURE_TOOLS, e.target.value)) {
          return report(e.span, `a check predicate is pure: it can call only ${PREDICATE_TOOLS.map((t) => `"${t}"`).join(', ')}`);
        }
        return e.args.forEach(visitExpr);
      default:
        return report(e.span, `a check predicate is pure: it cannot use ${describeKind(e.kind)}`);
    }
  };
  visitBlock(predicate.body);
  return found;
}

function describeKind(kind: string): string {
  return kind === 'Infer' ? '`infer`' : kind === 'Call' || kind === 'MethodCall' ? 'a call of a closure' : `a ${kind} expression`;
}
