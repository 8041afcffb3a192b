; Symbols for outlines and code navigation (`tree-sitter tags`, GitHub, Helix's symbol picker):
; `@name` is the symbol's name, `@definition.KIND` / `@reference.KIND` the whole construct.

(struct_declaration
  name: (type_identifier) @name) @definition.class

(type_alias
  name: (type_identifier) @name) @definition.type

(impl_declaration
  type: (type_identifier) @name) @reference.implementation

(impl_declaration
  method: (let_statement
    name: (identifier) @name
    value: (closure)) @definition.method)

(source_file
  (let_statement
    name: (identifier) @name
    value: (closure)) @definition.function)

(call_expression
  function: (identifier) @name) @reference.call

(method_call
  name: (field_identifier) @name) @reference.call

(struct_literal
  name: (type_identifier) @name) @reference.class
