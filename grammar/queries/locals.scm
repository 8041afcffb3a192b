; Scopes and definitions. `let` binds in the enclosing function (closure) scope, not the block.

(source_file) @local.scope
(closure) @local.scope

(let_statement name: (identifier) @local.definition)
(parameter name: (identifier) @local.definition)
(try_statement parameter: (identifier) @local.definition)

(identifier) @local.reference
