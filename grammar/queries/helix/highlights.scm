; Syntax highlighting for Turn in Helix: GENERATED from ../highlights.scm by
; test/grammar/queries.test.ts (UPDATE_HIGHLIGHTS=1), with the capture names renamed to the
; theme scopes Helix uses (HELIX_RENAMES in test/grammar/capture-names.ts). Edit ../highlights.scm.
; As there, the last pattern that captures a node wins (Helix 25.07 and later).

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
] @keyword.storage.type

[
  "if"
  "else"
] @keyword.control.conditional

"while" @keyword.control.repeat

"return" @keyword.control.return

[
  "try"
  "catch"
  "throw"
] @keyword.control.exception

"use" @keyword.control.import

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
] @keyword.control

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
  "context" @namespace
  operation: _ @function.builtin)

; `grant identity::bearer(...)` / `use schema::openapi(...)`
(grant_expression
  "identity" @namespace
  kind: (identifier) @type)

(use_schema
  "schema" @namespace
  protocol: (identifier) @type)

; `scope fail_fast | wait_all | first_success { ... }`
(scope_expression
  policy: (identifier) @constant.builtin)

; ---------------------------------------------------------------- types

(type_identifier) @type

(struct_declaration
  name: (type_identifier) @type)

(type_alias
  name: (type_identifier) @type)

((type_identifier) @type.builtin
  (#any-of? @type.builtin "Num" "Str" "Bool" "List" "Map" "Any" "Void" "Pid" "Vec" "Identity"))

; `Point { x: 1 }` builds a struct
(struct_literal
  name: (type_identifier) @constructor)

; ---------------------------------------------------------------- fields, functions, parameters

(field_identifier) @variable.other.member

; `infer T with { max_tokens: 200 }`: an option's name
(infer_option
  name: (identifier) @variable.other.member)

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
  function: (identifier) @function)

(method_call
  name: (field_identifier) @function.method)

((identifier) @variable.builtin
  (#eq? @variable.builtin "self"))

; ---------------------------------------------------------------- literals

(string) @string

(use_expression
  path: (string) @string.special.path)

(escape_sequence) @constant.character.escape

(number) @constant.numeric

[
  (true)
  (false)
] @constant.builtin.boolean

(null) @constant.builtin

; ---------------------------------------------------------------- comments

[
  (line_comment)
  (block_comment)
] @comment

; `///` before a struct or a field: its description
(doc_comment) @comment.block.documentation

; ---------------------------------------------------------------- check annotations

; `@range(0, 150)`, `@check("even", ...)` after a field's type
(check_annotation
  "@" @attribute
  name: (identifier) @attribute)

; `T?`: absent or null
(optional_type
  "?" @operator)
