; Syntax highlighting for Turn.

(line_comment) @comment
(block_comment) @comment

(string) @string
(escape_sequence) @string.escape
(number) @number
[(true) (false)] @boolean
(null) @constant.builtin

(type_identifier) @type
((type_identifier) @type.builtin
  (#any-of? @type.builtin "Num" "Str" "Bool" "List" "Map" "Any" "Void" "Pid" "Vec" "Identity"))

(field_identifier) @property
(parameter name: (identifier) @variable.parameter)

(let_statement name: (identifier) @function
  value: (closure))
(call_expression function: (identifier) @function.call)
(method_call name: (field_identifier) @function.method.call)
(grant_expression kind: (identifier) @type)
(use_schema protocol: (identifier) @type)

[
  "let" "struct" "impl" "type" "return" "if" "else" "while" "try" "catch" "throw"
  "use" "grant" "suspend" "turn"
] @keyword

[
  "infer" "confidence" "spawn" "spawn_link" "spawn_each" "gather" "send" "remember" "recall"
  "context" "append" "system" "call" "map" "filter" "vec" "schema" "identity"
  "invoke" "scope" "task" "detach"
] @keyword.function

(receive) @keyword.function

["and" "or"] @keyword.operator

["+" "-" "*" "/" "==" "!=" "<" ">" "<=" ">=" "!" "~>" "->" "=" ".." "|" "::"] @operator

["(" ")" "[" "]" "{" "}"] @punctuation.bracket
["," ";" ":" "."] @punctuation.delimiter

(identifier) @variable
