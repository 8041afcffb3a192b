; Scopes, definitions and references (tree-sitter's local-variable captures: the CLI, Helix and
; Neovim resolve a reference to its definition with them, and give it the definition's highlight).
; `let` binds in the enclosing function (closure) scope, not in the block it is written in.

(source_file) @local.scope

(closure) @local.scope

(let_statement
  name: (identifier) @local.definition)

(parameter
  name: (identifier) @local.definition)

(try_statement
  parameter: (identifier) @local.definition)

(identifier) @local.reference
