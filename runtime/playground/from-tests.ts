// Inputs taken from a test (docs/editor.md, *Playground*): the calls of a function inside the test
// cases of a test file whose arguments are all literals (numbers, strings, booleans, null, and
// lists, maps and struct literals of them) are offered as ready-made inputs. A call is recognised
// by the function's name: `NAME(...)`, `m.NAME(...)` or `m["NAME"](...)` (a test reaches a module's
// function through the map `use` returns). Read from the syntax alone: nothing runs.
import { discoverSource } from '../testing/discover.js';
import { parseSource } from '../syntax/parse.js';
import { walk } from '../syntax/walk.js';
import type { Expr } from '../syntax/ast.js';
import type { PlayableParam } from './functions.js';

export interface TestInputs {
  /** the test case the call is in */
  test: string;
  /** 1-based line of the call */
  line: number;
  /** the arguments by parameter name */
  args: Record<string, unknown>;
}

/** The most inputs offered from one test file. */
export const MAX_TEST_INPUTS = 50;
/** Literals nested deeper than this are not offered (the form could not show them anyway). */
const MAX_LITERAL_DEPTH = 32;

const NOT_LITERAL = Symbol('not a literal');

/** The JSON value a literal expression stands for, or NOT_LITERAL. */
function literal(e: Expr, depth = 0): unknown {
  if (depth > MAX_LITERAL_DEPTH) return NOT_LITERAL;
  switch (e.kind) {
    case 'Number':
    case 'String':
    case 'Bool':
      return e.value;
    case 'Null':
      return null;
    case 'List': {
      const out: unknown[] = [];
      for (const item of e.items) {
        const v = literal(item, depth + 1);
        if (v === NOT_LITERAL) return NOT_LITERAL;
        out.push(v);
      }
      return out;
    }
    case 'Map':
    case 'StructLit': {
      if (e.kind === 'StructLit' && e.spread) return NOT_LITERAL;
      const out: Record<string, unknown> = {};
      for (const entry of e.kind === 'Map' ? e.entries.map((x) => ({ key: x.key, value: x.value })) : e.fields.map((f) => ({ key: f.name.name, value: f.value }))) {
        const v = literal(entry.value, depth + 1);
        if (v === NOT_LITERAL) return NOT_LITERAL;
        out[entry.key] = v;
      }
      return out;
    }
    default:
      return NOT_LITERAL;
  }
}

/** Whether `callee` names the function `name`: `name`, `m.name`, `m["name"]`. */
function names(callee: Expr, name: string): boolean {
  if (callee.kind === 'Identifier') return callee.name === name;
  if (callee.kind === 'Member') return callee.name.name === name;
  if (callee.kind === 'Index') return callee.index.kind === 'String' && callee.index.value === name;
  return false;
}

/** The literal calls of function `name` (with `params`) in the test cases of the test file `file` (text `text`). */
export async function inputsFromTests(name: string, params: PlayableParam[], file: string, text: string): Promise<TestInputs[]> {
  const { tests } = await discoverSource(file, text);
  if (tests.length === 0) return [];
  const { program, file: source } = await parseSource(file, text);
  const found: TestInputs[] = [];
  walk(program, (node) => {
    if (found.length >= MAX_TEST_INPUTS) return false;
    let args: Expr[] | undefined;
    if (node.kind === 'Call' && names(node.callee, name)) args = node.args;
    else if (node.kind === 'MethodCall' && node.name.name === name) args = node.args;
    if (!args || args.length > params.length) return true;
    const line = source.position(node.span.start).line;
    const test = tests.find((t) => t.line <= line && line <= t.endLine);
    if (!test) return true;
    const values = args.map((a) => literal(a));
    if (values.some((v) => v === NOT_LITERAL)) return true;
    found.push({ test: test.name, line, args: Object.fromEntries(values.map((v, i) => [params[i].name, v])) });
    return true;
  });
  return found.sort((a, b) => a.line - b.line);
}
