; Folding ranges (`@fold`, nvim-treesitter): blocks, declarations, and multi-line literals and
; argument lists. Neovim folds a node only when it spans more than one line.

[
  (block)
  (struct_declaration)
  (impl_declaration)
  (map)
  (list)
  (struct_literal)
  (arguments)
  (block_comment)
] @fold
