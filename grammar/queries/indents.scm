; Indentation, in nvim-treesitter's captures (`@indent.begin` indents the lines inside a node,
; `@indent.branch` puts a closing bracket back at the node's level). Helix and Zed use other
; captures: queries/helix/indents.scm and queries/zed/indents.scm.

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
] @indent.begin

[
  "}"
  "]"
  ")"
] @indent.branch

[
  "}"
  "]"
  ")"
] @indent.end

(block_comment) @indent.auto
