; Language injections: comments are handed to the `comment` grammar where the editor has one
; (TODO / FIXME / NOTE highlighting in Neovim and Helix); nothing happens where it has none.

([
  (line_comment)
  (block_comment)
] @injection.content
  (#set! injection.language "comment"))
