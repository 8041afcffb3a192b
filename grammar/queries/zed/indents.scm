; Indentation for Zed (`@indent` on the node, `@end` on its closing bracket).

(block "}" @end) @indent
(struct_declaration "}" @end) @indent
(impl_declaration "}" @end) @indent
(map "}" @end) @indent
(struct_literal "}" @end) @indent
(list "]" @end) @indent
(vec_literal "]" @end) @indent
(arguments ")" @end) @indent
(parameters ")" @end) @indent
