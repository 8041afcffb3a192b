; Symbols for outlines and code navigation.

(struct_declaration name: (type_identifier) @name) @definition.class
(type_alias name: (type_identifier) @name) @definition.type
(impl_declaration type: (type_identifier) @name) @reference.implementation

(impl_declaration
  method: (let_statement name: (identifier) @name value: (closure)) @definition.method)

(source_file
  (let_statement name: (identifier) @name value: (closure)) @definition.function)

(call_expression function: (identifier) @name) @reference.call
(method_call name: (field_identifier) @name) @reference.call
(struct_literal name: (type_identifier) @name) @reference.class
