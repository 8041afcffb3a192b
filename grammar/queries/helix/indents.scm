; Indentation for Helix (`@indent` / `@outdent`; see queries/indents.scm for Neovim's).

[
  (block)
  (struct_declaration)
  (impl_declaration)
  (map)
  (list)
  (vec_literal)
  (struct_literal)
  (arguments)
  (parameters)
  (type_parameters)
  (type_arguments)
] @indent

[
  "}"
  "]"
  ")"
] @outdent
