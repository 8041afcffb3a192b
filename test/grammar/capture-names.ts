// The capture names grammar/queries/ may use, per kind of query and per editor. A capture outside
// these lists is a typo or a name no editor styles, and fails test/grammar/queries.test.ts.
// Captures starting with `_` are private to a query's predicates and always allowed.
// docs/other-editors.md describes the same lists.

/**
 * Highlight captures of queries/highlights.scm: nvim-treesitter's standard names (its
 * CONTRIBUTING.md), which Zed and the tree-sitter CLI also take; Zed and Helix style a dotted name
 * by its longest prefix their theme knows.
 */
export const HIGHLIGHT_CAPTURES: ReadonlySet<string> = new Set([
  // identifiers
  'variable', 'variable.builtin', 'variable.parameter', 'variable.parameter.builtin', 'variable.member',
  'constant', 'constant.builtin', 'constant.macro',
  'module', 'module.builtin', 'label',
  // literals
  'string', 'string.documentation', 'string.regexp', 'string.escape', 'string.special',
  'string.special.symbol', 'string.special.url', 'string.special.path',
  'character', 'character.special', 'boolean', 'number', 'number.float',
  // types
  'type', 'type.builtin', 'type.definition', 'attribute', 'attribute.builtin', 'property',
  // functions
  'function', 'function.builtin', 'function.call', 'function.macro', 'function.method',
  'function.method.call', 'constructor', 'operator',
  // keywords
  'keyword', 'keyword.coroutine', 'keyword.function', 'keyword.operator', 'keyword.import',
  'keyword.type', 'keyword.modifier', 'keyword.repeat', 'keyword.return', 'keyword.debug',
  'keyword.exception', 'keyword.conditional', 'keyword.conditional.ternary', 'keyword.directive',
  'keyword.directive.define',
  // punctuation and comments
  'punctuation.delimiter', 'punctuation.bracket', 'punctuation.special',
  'comment', 'comment.documentation', 'comment.error', 'comment.warning', 'comment.todo', 'comment.note',
  // not highlighting (`@spell` is left out on purpose: Zed then leaves the node unstyled)
  'none', 'conceal',
]);

/**
 * Helix's theme scopes (its book, "Themes" → "Syntax highlighting"), for queries/helix/highlights.scm.
 * Only the scopes a Turn query can sensibly use; a longer dotted name falls back to these.
 */
export const HELIX_HIGHLIGHT_CAPTURES: ReadonlySet<string> = new Set([
  'attribute', 'type', 'type.builtin', 'type.parameter', 'type.enum', 'type.enum.variant', 'constructor',
  'constant', 'constant.builtin', 'constant.builtin.boolean', 'constant.character',
  'constant.character.escape', 'constant.numeric', 'constant.numeric.integer', 'constant.numeric.float',
  'string', 'string.regexp', 'string.special', 'string.special.path', 'string.special.url',
  'string.special.symbol',
  'comment', 'comment.line', 'comment.block', 'comment.block.documentation',
  'variable', 'variable.builtin', 'variable.parameter', 'variable.other', 'variable.other.member',
  'label', 'punctuation', 'punctuation.delimiter', 'punctuation.bracket', 'punctuation.special',
  'keyword', 'keyword.control', 'keyword.control.conditional', 'keyword.control.repeat',
  'keyword.control.import', 'keyword.control.return', 'keyword.control.exception', 'keyword.operator',
  'keyword.directive', 'keyword.function', 'keyword.storage', 'keyword.storage.type',
  'keyword.storage.modifier',
  'operator', 'function', 'function.builtin', 'function.method', 'function.macro', 'function.special',
  'tag', 'namespace', 'special',
]);

/**
 * How queries/helix/highlights.scm renames the captures of queries/highlights.scm: where Helix's
 * themes use another root (`number` → `constant.numeric`) or a finer scope (`keyword.control.*`).
 * Names not listed are kept; those with a Helix prefix (`function.call` → `function`) fall back.
 */
export const HELIX_RENAMES: Readonly<Record<string, string>> = {
  number: 'constant.numeric',
  'number.float': 'constant.numeric.float',
  boolean: 'constant.builtin.boolean',
  property: 'variable.other.member',
  'variable.member': 'variable.other.member',
  'string.escape': 'constant.character.escape',
  'function.call': 'function',
  'function.method.call': 'function.method',
  'type.definition': 'type',
  module: 'namespace',
  'module.builtin': 'namespace',
  'keyword.conditional': 'keyword.control.conditional',
  'keyword.repeat': 'keyword.control.repeat',
  'keyword.return': 'keyword.control.return',
  'keyword.exception': 'keyword.control.exception',
  'keyword.import': 'keyword.control.import',
  'keyword.coroutine': 'keyword.control',
  'keyword.type': 'keyword.storage.type',
  'keyword.modifier': 'keyword.storage.modifier',
  'comment.documentation': 'comment.block.documentation',
};

/** A highlight capture's name in queries/helix/highlights.scm. */
export function helixName(name: string): string {
  return Object.hasOwn(HELIX_RENAMES, name) ? HELIX_RENAMES[name] : name;
}

/** Local-variable captures (tree-sitter's, which Helix and Neovim read too). */
export const LOCALS_CAPTURES: ReadonlySet<string> = new Set(['local.scope', 'local.definition', 'local.reference']);

/** Code-navigation captures: tree-sitter's standard tags, plus the kinds GitHub and Helix also know. */
export const TAGS_CAPTURES: ReadonlySet<string> = new Set([
  'name', 'doc', 'ignore',
  'definition.class', 'definition.function', 'definition.interface', 'definition.method',
  'definition.module', 'definition.constant', 'definition.macro', 'definition.type',
  'reference.call', 'reference.class', 'reference.implementation', 'reference.interface', 'reference.type',
]);

/** Injection captures (the same in Neovim, Helix, Zed and the CLI). */
export const INJECTION_CAPTURES: ReadonlySet<string> = new Set(['injection.content', 'injection.language']);

/** nvim-treesitter's indent captures. */
export const INDENT_CAPTURES: ReadonlySet<string> = new Set([
  'indent.begin', 'indent.end', 'indent.align', 'indent.dedent', 'indent.branch', 'indent.ignore',
  'indent.auto', 'indent.zero',
]);

/** Folds (nvim-treesitter). */
export const FOLD_CAPTURES: ReadonlySet<string> = new Set(['fold']);

/** Helix's indent captures (its book, "Adding indent queries"). */
export const HELIX_INDENT_CAPTURES: ReadonlySet<string> = new Set(['indent', 'outdent', 'indent.always', 'outdent.always', 'align', 'anchor', 'extend', 'extend.prevent-once']);

/** Zed's captures for its own query files (its docs, "Language Extensions"). */
export const ZED_CAPTURES: Readonly<Record<string, ReadonlySet<string>>> = {
  brackets: new Set(['open', 'close']),
  indents: new Set(['indent', 'end']),
  outline: new Set(['item', 'name', 'context', 'context.extra', 'annotation']),
};

/** The allowed captures of a query file, by its path under grammar/queries/ (`highlights.scm`, `helix/indents.scm`). */
export function allowedCaptures(relPath: string): ReadonlySet<string> | undefined {
  const parts = relPath.split('/');
  const kind = parts[parts.length - 1].replace(/\.scm$/, '');
  const editor = parts.length > 1 ? parts[0] : '';
  if (editor === 'helix') {
    if (kind === 'highlights') return HELIX_HIGHLIGHT_CAPTURES;
    if (kind === 'indents') return HELIX_INDENT_CAPTURES;
    return undefined;
  }
  if (editor === 'zed') return ZED_CAPTURES[kind];
  if (editor !== '') return undefined;
  return (
    {
      highlights: HIGHLIGHT_CAPTURES,
      locals: LOCALS_CAPTURES,
      tags: TAGS_CAPTURES,
      injections: INJECTION_CAPTURES,
      indents: INDENT_CAPTURES,
      folds: FOLD_CAPTURES,
    } as Record<string, ReadonlySet<string>>
  )[kind];
}

/** The predicates and directives every target understands (no `#lua-match?`, `#vim-match?`, ...). */
export const PORTABLE_PREDICATES: ReadonlySet<string> = new Set([
  'eq?', 'not-eq?', 'any-of?', 'not-any-of?', 'match?', 'not-match?', 'set!',
]);
