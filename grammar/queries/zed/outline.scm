; The outline panel and symbol search for Zed: structs with their fields, type aliases, `impl`
; blocks with their methods, top-level functions and the `turn { }` entry block.

(struct_declaration
  "struct" @context
  name: (type_identifier) @name) @item

(field_declaration
  name: (field_identifier) @name) @item

(type_alias
  "type" @context
  name: (type_identifier) @name) @item

(impl_declaration
  "impl" @context
  type: (type_identifier) @name) @item

(impl_declaration
  method: (let_statement
    "let" @context
    name: (identifier) @name
    value: (closure)) @item)

(source_file
  (let_statement
    "let" @context
    name: (identifier) @name
    value: (closure)) @item)

(entry_block
  "turn" @name) @item
