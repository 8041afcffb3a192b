// Modules as a typed unit. A module's value is what its top level returns (docs/language.md,
// "Modules"); the checker knows of it:
//  - its value's type: for the usual map of closures, each member's type and each closure's
//    parameters, so `money.fmt(5)` and `money.fmtt(5)` are checked in the file that uses it;
//  - its types: the structs and aliases it declares at top level, and those of the modules it uses
//    (so a struct it names in a signature can be named, built and read by its users too).
// A struct's name is its identity at run time across the whole program (the compiler keeps one
// table of structs), so a `Money` built in one file is the `Money` another file's closures take;
// two different declarations of one name in files that meet are an error.
//
// `ModuleGraph` checks a file's modules before the file (depth first), each once, and finds cycles
// as it goes: each `use` on a cycle gets the whole cycle as a located error.
import * as path from 'node:path';
import type * as A from '../syntax/ast.js';
import { formatDiagnostic, type Diagnostic } from '../diagnostics.js';
import type { SourceFile } from '../syntax/source.js';
import { walk } from '../syntax/walk.js';
import type { AnalysisObserver, Binding } from './analyze.js';
import { ANY, NULL, type ModuleMember, type StaticType } from './types.js';

/** At most this many files in one program (its entry and every module it reaches). */
export const MAX_MODULES = 500;
/** At most this long a chain of `use`s from the entry file. */
export const MAX_MODULE_DEPTH = 64;

export interface ExportedType {
  decl: A.StructDecl | A.TypeAliasDecl;
  /** a struct's methods: the `impl`s of it in the declaring file */
  impls: A.ImplDecl[];
  /** the file that declares it */
  file: string;
}

export interface ModuleExports {
  /** the type of the module's value; a map's `module` shape has an empty `spec` until a `use` names it */
  value: StaticType;
  /** the structs and aliases it declares at top level, then those of the modules it uses */
  types: ExportedType[];
}

/** What a file's `use`s lead to, by the module's resolved path. */
export interface ModuleContext {
  modules: ReadonlyMap<string, { exports?: ModuleExports; problem?: string }>;
}

// ------------------------------------------------------------------------------ a module's value

/**
 * The expression a module yields: the first `return` directly in its top level. Undefined when it
 * has none (its value is null); null when a `return` sits inside a block of the top level (then
 * which one runs is not known here).
 */
function moduleValueExpr(program: A.Program): A.Expr | undefined | null {
  let nested = false;
  for (const s of program.body) {
    walk(s, (n) => {
      if (n.kind === 'Closure') return false;
      if (n.kind === 'Return' && n !== s) nested = true;
      return !nested;
    });
    if (nested) return null;
    if (s.kind === 'Return') return s.value ?? undefined;
  }
  return undefined;
}

/**
 * Watches the analysis of a module for what it exports: the type of its value and, when that is a
 * map literal (or a name bound once, at top level, to one), the type and signature of each entry.
 */
export function exportCollector(program: A.Program): { observer: AnalysisObserver; value(): StaticType } {
  const valueExpr = moduleValueExpr(program);
  let map: A.MapLit | undefined = valueExpr?.kind === 'Map' ? valueExpr : undefined;
  if (valueExpr?.kind === 'Identifier') {
    const lets = program.body.filter((s): s is A.LetStmt => s.kind === 'Let' && s.name.name === valueExpr.name);
    if (lets.length === 1 && lets[0].value.kind === 'Map') map = lets[0].value;
  }
  const watched = new Set<A.Expr>(map ? map.entries.map((e) => e.value) : []);
  if (valueExpr) watched.add(valueExpr);
  const types = new Map<A.Expr, StaticType>();
  const bindings = new Map<A.Expr, Binding>();
  const observer: AnalysisObserver = {
    expr(e, t) {
      if (watched.has(e)) types.set(e, t);
    },
    reference(id, b) {
      if (b && watched.has(id)) bindings.set(id, b);
    },
  };
  return {
    observer,
    value(): StaticType {
      if (valueExpr === null) return ANY;
      if (valueExpr === undefined) return NULL;
      if (!map) return types.get(valueExpr) ?? ANY;
      const members = new Map<string, ModuleMember>();
      for (const entry of map.entries) {
        const type = types.get(entry.value) ?? ANY;
        members.set(entry.key, { type, sig: signatureOf(entry.value, type, bindings.get(entry.value)) });
      }
      return { kind: 'Map', module: { spec: '', members } };
    },
  };
}

/** Parameter names and declared types of an exported closure: a closure literal, or a name bound once to one. */
function signatureOf(e: A.Expr, type: StaticType, binding: Binding | undefined): ModuleMember['sig'] {
  if (binding?.sig) return binding.sig;
  if (e.kind !== 'Closure' || type.kind !== 'Closure') return undefined;
  return {
    params: e.params.map((p, i) => ({ name: p.name.name, type: p.type ? type.params[i] : undefined })),
    result: e.returnType ? type.result : undefined,
  };
}

/** The types a file exports: its own top-level declarations, then those of its modules. */
export function exportedTypes(filePath: string, program: A.Program, context: ModuleContext | undefined): ExportedType[] {
  const out: ExportedType[] = [];
  const seen = new Set<string>();
  // one pass groups the impls by type name (filtering the body per struct was quadratic: 2,000
  // structs in a 45,000-line file took most of the language server's time)
  const implsOf = new Map<string, A.ImplDecl[]>();
  for (const i of program.body) {
    if (i.kind !== 'Impl') continue;
    const list = implsOf.get(i.typeName.name);
    if (list) list.push(i);
    else implsOf.set(i.typeName.name, [i]);
  }
  for (const s of program.body) {
    if ((s.kind === 'Struct' || s.kind === 'TypeAlias') && !seen.has(s.name.name)) {
      seen.add(s.name.name);
      out.push({ decl: s, file: filePath, impls: implsOf.get(s.name.name) ?? [] });
    }
  }
  for (const m of context?.modules.values() ?? []) {
    for (const t of m.exports?.types ?? []) {
      if (!seen.has(t.decl.name.name)) {
        seen.add(t.decl.name.name);
        out.push(t);
      }
    }
  }
  return out;
}

// ------------------------------------------------------------------------------ a using file

/** The value of a module as one `use` names it (its spec shown in messages). */
function namedValue(value: StaticType, spec: string): StaticType {
  return value.kind === 'Map' && value.module ? { ...value, module: { ...value.module, spec } } : value;
}

/** A declaration as text without positions: two files declare "the same" struct when these agree. */
function declShape(d: A.StructDecl | A.TypeAliasDecl): string {
  const strip = (k: string, v: unknown) => (k === 'span' || k === 'description' ? undefined : v);
  return d.kind === 'Struct' ? JSON.stringify({ p: d.typeParams.map((p) => p.name), f: d.fields.map((f) => [f.name.name, f.type, f.checks]) }, strip) : JSON.stringify(d.type, strip);
}

export interface ImportedModules {
  /** the type of each `use` of a checked module */
  values: Map<A.UseExpr, StaticType>;
  /** the types this file may name from its modules, and their methods */
  types: (A.StructDecl | A.TypeAliasDecl | A.ImplDecl)[];
  /** problems of the modules (cycles, syntax errors), and types declared differently in two places */
  diagnostics: Diagnostic[];
}

/**
 * What a file takes from its modules: the type of each `use`, the types it may name, and the
 * conflicts between them and its own declarations. `shown` gives a file's path as messages show it.
 */
export function importModules(program: A.Program, uses: ReadonlyMap<A.UseExpr, string>, context: ModuleContext | undefined, shown: (file: string) => string = relativePath): ImportedModules {
  const out: ImportedModules = { values: new Map(), types: [], diagnostics: [] };
  if (!context) return out;
  const local = new Map<string, A.StructDecl | A.TypeAliasDecl>();
  for (const s of program.body) if ((s.kind === 'Struct' || s.kind === 'TypeAlias') && !local.has(s.name.name)) local.set(s.name.name, s);
  const taken = new Map<string, ExportedType>();
  for (const [use, file] of uses) {
    const m = context.modules.get(file);
    if (!m) continue;
    if (m.problem) out.diagnostics.push({ severity: 'error', message: m.problem, span: use.path.span, code: 'module' });
    if (!m.exports) continue;
    out.values.set(use, namedValue(m.exports.value, use.path.value));
    for (const t of m.exports.types) {
      const name = t.decl.name.name;
      const mine = local.get(name);
      if (mine) {
        if (declShape(mine) !== declShape(t.decl)) {
          out.diagnostics.push({
            severity: 'error',
            code: 'module-type',
            span: mine.name.span,
            message: `\`${name}\` is also declared in ${shown(t.file)}, differently: a type's name is its identity across the program, so use the module's \`${name}\` (and delete this one) or rename one of them`,
          });
        }
        continue;
      }
      const before = taken.get(name);
      if (before) {
        if (before.decl !== t.decl && declShape(before.decl) !== declShape(t.decl)) {
          out.diagnostics.push({
            severity: 'error',
            code: 'module-type',
            span: use.path.span,
            message: `\`${name}\` is declared differently in ${shown(before.file)} and ${shown(t.file)}: a type's name is its identity across the program, so one of them must be renamed`,
          });
        }
        continue;
      }
      taken.set(name, t);
      out.types.push(t.decl, ...t.impls);
    }
  }
  return out;
}

/** A path as messages show it: relative to the working folder. */
export function relativePath(file: string): string {
  return path.relative(process.cwd(), file) || file;
}

// ------------------------------------------------------------------------------ the graph

/** One file as the graph sees it: parsed (not yet analyzed), or why it could not be read. */
export type ModuleSourceResult =
  | { ok: true; file: SourceFile; program: A.Program; syntax: Diagnostic[] }
  | { ok: false; message: string };

export interface ModuleSource {
  /** Reads and parses the file at `path` (an absolute path). */
  read(path: string): Promise<ModuleSourceResult>;
  /** Checks a parsed file, given its module context: its diagnostics, `use` targets and exports. */
  check(path: string, parsed: Extract<ModuleSourceResult, { ok: true }>, context: ModuleContext): Promise<CheckedModule>;
  /** The resolved path of each `use "..."` of a parsed program (unresolved ones are left out). */
  uses(path: string, program: A.Program): Map<A.UseExpr, string>;
}

export interface CheckedModule {
  exports: ModuleExports;
  /** whatever the checker returns for the file (a CheckResult), passed through */
  result: unknown;
  file: SourceFile;
}

/**
 * The modules of a program, each checked once, in the order a file's modules come before it.
 * `check(entry)` checks the entry and everything it reaches; `contextFor` only what a file (an
 * editor's open document) needs of its modules.
 */
export class ModuleGraph {
  /** checked files by path, in the order they finished */
  readonly checked = new Map<string, CheckedModule>();
  /** what could not be read, by path */
  private readonly unreadable = new Map<string, string>();
  /** the first syntax error of each file that has one, as `FILE:LINE:COL: message` */
  private readonly syntaxErrors = new Map<string, string>();
  /** the files being checked, entry first: a `use` of one of them closes a cycle */
  private readonly stack: string[] = [];
  /** `from → to` edges on a cycle, with the cycle's message */
  private readonly cycles = new Map<string, string>();
  private limitMessage: string | undefined;

  constructor(
    private readonly source: ModuleSource,
    private readonly shown: (file: string) => string = relativePath,
    private readonly limits = { modules: MAX_MODULES, depth: MAX_MODULE_DEPTH },
  ) {}

  /** Checks `file` after its modules. Undefined when it cannot be read (`unreadableMessage` says why). */
  async check(file: string): Promise<CheckedModule | undefined> {
    const done = this.checked.get(file);
    if (done) return done;
    const parsed = await this.source.read(file);
    if (!parsed.ok) {
      this.unreadable.set(file, parsed.message);
      return undefined;
    }
    const syntax = parsed.syntax.find((d) => d.severity === 'error');
    if (syntax) this.syntaxErrors.set(file, formatDiagnostic(parsed.file, syntax));
    const context = await this.contextFor(file, parsed.program);
    const checked = await this.source.check(file, parsed, context);
    this.checked.set(file, checked);
    return checked;
  }

  unreadableMessage(file: string): string | undefined {
    return this.unreadable.get(file);
  }

  /** What `file`'s `use`s lead to: each module checked (or the problem to report at the `use`). */
  async contextFor(file: string, program: A.Program): Promise<ModuleContext> {
    const modules = new Map<string, { exports?: ModuleExports; problem?: string }>();
    const targets = new Set(this.source.uses(file, program).values());
    this.stack.push(file);
    try {
      for (const target of targets) {
        const at = this.stack.indexOf(target);
        if (at >= 0) {
          const chain = [...this.stack.slice(at), target];
          const message = `module cycle: ${chain.map(this.shown).join(' → ')} (a module cannot use, directly or not, a module that uses it: move what both need into a third module)`;
          for (let i = 0; i + 1 < chain.length; i++) this.cycles.set(edge(chain[i], chain[i + 1]), message);
          continue;
        }
        if (!this.checked.has(target)) {
          if (this.stack.length >= this.limits.depth) {
            modules.set(target, { problem: `modules nest too deeply: ${this.stack.length} files in a chain of \`use\`s (the limit is ${this.limits.depth})` });
            continue;
          }
          if (this.checked.size + this.stack.length >= this.limits.modules) {
            this.limitMessage ??= `the program has too many modules (the limit is ${this.limits.modules} files)`;
            modules.set(target, { problem: this.limitMessage });
            continue;
          }
        }
        const checked = await this.check(target);
        if (!checked) {
          modules.set(target, { problem: `cannot use this module: ${this.unreadable.get(target) ?? 'it cannot be read'}` });
          continue;
        }
        const syntax = this.syntaxErrors.get(target);
        // what a module that does not parse returns is not known: its value is Any (its types, as far as they parsed, stay)
        if (syntax) modules.set(target, { exports: { ...checked.exports, value: ANY }, problem: `module ${this.shown(target)} does not parse: ${syntax}` });
        else modules.set(target, { exports: checked.exports });
      }
    } finally {
      this.stack.pop();
    }
    // a cycle found below this file (or through it) is reported at this file's `use` on it too
    for (const target of targets) {
      const cycle = this.cycles.get(edge(file, target));
      if (cycle) modules.set(target, { problem: cycle, exports: modules.get(target)?.exports });
    }
    return { modules };
  }
}

function edge(from: string, to: string): string {
  return `${from}\u0000${to}`;
}

