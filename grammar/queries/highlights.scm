; Syntax highlighting for Turn.
;
; Capture names are nvim-treesitter's standard ones (the list is in test/grammar/capture-names.ts and
; docs/other-editors.md). Zed and Helix fall back from a dotted name to its prefix
; (`@function.method.call` -> `@function.method` -> `@function`); queries/helix/highlights.scm is
; this file with Helix's names where its themes use other roots (`@number` -> `@constant.numeric`).
;
; Precedence: when several patterns capture the same node, the LAST one wins, as in Neovim, Zed,
; Helix (25.07 and later) and the tree-sitter CLI (0.21 and later). So the general patterns come
; first and the specific ones after them. test/grammar/queries.test.ts checks the result on a sample.

; ---------------------------------------------------------------- identifiers (the fallback)

(identifier) @variable

; ---------------------------------------------------------------- punctuation and operators

[
  "("
  ")"
  "["
  "]"
  "{"
  "}"
] @punctuation.bracket

[
  ","
  ";"
  ":"
  "."
  "::"
] @punctuation.delimiter

[
  "+"
  "-"
  "*"
  "/"
  "=="
  "!="
  "<"
  ">"
  "<="
  ">="
  "!"
  "~>"
  "->"
  "="
  ".."
  "|"
] @operator

; `<` and `>` around type parameters and arguments are brackets, not comparisons
(type_parameters
  [
    "<"
    ">"
  ] @punctuation.bracket)

(type_arguments
  [
    "<"
    ">"
  ] @punctuation.bracket)

; ---------------------------------------------------------------- keywords

; `ask` is a keyword only in `ask T { ... }` (elsewhere a name)
(ask_expression "ask" @keyword)

[
  "let"
  "infer"
  "with"
  "confidence"
  "grant"
  "remember"
  "recall"
] @keyword

[
  "struct"
  "impl"
  "type"
] @keyword.type

[
  "if"
  "else"
] @keyword.conditional

"while" @keyword.repeat

"return" @keyword.return

[
  "try"
  "catch"
  "throw"
] @keyword.exception

"use" @keyword.import

; `turn(x) { ... }` makes a closure; `turn { ... }` is the entry block
"turn" @keyword.function

; processes, messages and their lifetimes
[
  "spawn"
  "spawn_link"
  "spawn_each"
  "gather"
  "send"
  "receive"
  "suspend"
  "invoke"
  "scope"
  "task"
  "detach"
] @keyword.coroutine

[
  "and"
  "or"
] @keyword.operator

; ---------------------------------------------------------------- built-ins

[
  "call"
  "map"
  "filter"
  "vec"
] @function.builtin

; `context.append(...)` / `context.system(...)`
(context_call
  "context" @module.builtin
  operation: _ @function.builtin)

; `grant identity::bearer(...)` / `use schema::openapi(...)`
(grant_expression
  "identity" @module.builtin
  kind: (identifier) @type)

(use_schema
  "schema" @module.builtin
  protocol: (identifier) @type)

; `scope fail_fast | wait_all | first_success { ... }`
(scope_expression
  policy: (identifier) @constant.builtin)

; ---------------------------------------------------------------- types

(type_identifier) @type

(struct_declaration
  name: (type_identifier) @type.definition)

(type_alias
  name: (type_identifier) @type.definition)

((type_identifier) @type.builtin
  (#any-of? @type.builtin "Num" "Str" "Bool" "List" "Map" "Any" "Void" "Pid" "Vec" "Identity"))

; `Point { x: 1 }` builds a struct
(struct_literal
  name: (type_identifier) @constructor)

; ---------------------------------------------------------------- fields, functions, parameters

(field_identifier) @property

; `infer T with { max_tokens: 200 }`: an option's name
(infer_option
  name: (identifier) @property)

(parameter
  name: (identifier) @variable.parameter)

(let_statement
  name: (identifier) @function
  value: (closure))

(impl_declaration
  method: (let_statement
    name: (identifier) @function.method
    value: (closure)))

(call_expression
  function: (identifier) @function.call)

(method_call
  name: (field_identifier) @function.method.call)

((identifier) @variable.builtin
  (#eq? @variable.builtin "self"))

; ---------------------------------------------------------------- literals

(string) @string

(use_expression
  path: (string) @string.special.path)

(escape_sequence) @string.escape

(number) @number

[
  (true)
  (false)
] @boolean

(null) @constant.builtin

; ---------------------------------------------------------------- comments

[
  (line_comment)
  (block_comment)
] @comment

; `///` before a struct or a field: its description
(doc_comment) @comment.documentation

; ---------------------------------------------------------------- check annotations

; `@range(0, 150)`, `@check("even", ...)` after a field's type
(check_annotation
  "@" @attribute
  name: (identifier) @attribute)

; `T?`: absent or null
(optional_type
  "?" @operator)
