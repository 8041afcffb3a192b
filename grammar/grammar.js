/**
 * Tree-sitter grammar for Turn, a language for agent programs.
 * One grammar serves the editor (highlighting, the language server) and the runtime (the compiler
 * lowers this CST to its AST), so the two can never disagree about what a program means.
 * Surface syntax: Turn v1, extended; docs/language.md is the language reference.
 */

const PREC = {
  or: 1,
  and: 2,
  equality: 3,
  compare: 4,
  additive: 5,
  multiplicative: 6,
  unary: 7,
  postfix: 8,
};

// Type and field names are identifiers, shown under their own node names for queries and the AST.
const typeName = ($) => alias($.identifier, $.type_identifier);
const fieldName = ($) => alias($.identifier, $.field_identifier);

const commaSep = (rule) => optional(seq(rule, repeat(seq(',', rule)), optional(',')));
const commaSep1 = (rule) => seq(rule, repeat(seq(',', rule)), optional(','));

module.exports = grammar({
  name: 'turn',

  word: ($) => $.identifier,

  // A `///` doc comment is an extra like any comment (so it may stand anywhere, as in Turn v1); lowering
  // reads the ones directly before a struct or a field as its description.
  extras: ($) => [/\s/, $.doc_comment, $.line_comment, $.block_comment],

  supertypes: ($) => [$._statement, $._expression, $._type],

  conflicts: ($) => [
    // `name {` opens a struct literal (`Point { x: 1 }`) or ends a condition (`if ready { ... }`).
    [$._expression, $.struct_literal],
    // `turn {` at the start of a statement: the entry block, or a closure expression (`turn { ... }(...);`).
    [$.entry_block, $.closure],
    // `ask` is a keyword only before a type: `ask T { ... }` asks a person, `ask(x)` / `ask + y` use a name `ask`.
    [$._expression, $.ask_expression],
  ],

  rules: {
    source_file: ($) => repeat($._statement),

    // ------------------------------------------------------------------ statements

    _statement: ($) =>
      choice(
        $.let_statement,
        $.expression_statement,
        $.return_statement,
        $.if_statement,
        $.while_statement,
        $.try_statement,
        $.throw_statement,
        $.struct_declaration,
        $.impl_declaration,
        $.type_alias,
        $.entry_block,
        $.suspend_statement,
      ),

    let_statement: ($) =>
      seq(
        'let',
        field('name', $.identifier),
        optional(seq(':', field('type', $._type))),
        '=',
        field('value', $._expression),
        ';',
      ),

    expression_statement: ($) => seq($._expression, ';'),

    return_statement: ($) => seq('return', optional(field('value', $._expression)), ';'),

    if_statement: ($) =>
      seq(
        'if',
        field('condition', $._expression),
        field('consequence', $.block),
        optional(seq('else', field('alternative', choice($.block, $.if_statement)))),
      ),

    while_statement: ($) => seq('while', field('condition', $._expression), field('body', $.block)),

    try_statement: ($) =>
      seq(
        'try',
        field('body', $.block),
        'catch',
        '(',
        field('parameter', $.identifier),
        ')',
        field('handler', $.block),
      ),

    throw_statement: ($) => seq('throw', field('value', $._expression), ';'),

    struct_declaration: ($) =>
      seq(
        'struct',
        field('name', typeName($)),
        optional(field('type_parameters', $.type_parameters)),
        '{',
        commaSep(field('field', $.field_declaration)),
        '}',
        optional(';'),
      ),

    type_parameters: ($) => seq('<', commaSep1(typeName($)), '>'),

    field_declaration: ($) =>
      seq(field('name', fieldName($)), ':', field('type', $._type), repeat(field('check', $.check_annotation))),

    // `@range(0, 150)`, `@pattern("^a")`, `@check("even", turn(v) { return v % 2 == 0; })`: a check on a field.
    check_annotation: ($) => seq('@', field('name', $.identifier), optional(field('arguments', $.arguments))),

    impl_declaration: ($) =>
      seq('impl', field('type', typeName($)), '{', repeat(field('method', $.let_statement)), '}', optional(';')),

    type_alias: ($) => seq('type', field('name', typeName($)), '=', field('type', $._type), ';'),

    // A top-level `turn { ... }`: the program's entry block.
    entry_block: ($) => prec.dynamic(1, seq('turn', field('body', $.block))),

    suspend_statement: ($) => seq('suspend', ';'),

    block: ($) => seq('{', repeat($._statement), '}'),

    // ------------------------------------------------------------------ types

    // `?` binds tighter than `|`: `Str | Num?` is `Str | (Num?)`; `(A | B)?` makes the union optional. A
    // function type is a member of a union or optional only in parentheses: `((Num) -> Str)?`.
    _type: ($) => choice($.union_type, $._single_type, $.function_type),

    _single_type: ($) => choice($._primary_type, $.optional_type),

    _primary_type: ($) => choice($.generic_type, typeName($), $.literal_type, $.parenthesized_type),

    generic_type: ($) => prec(1, seq(field('name', typeName($)), field('arguments', $.type_arguments))),

    type_arguments: ($) => seq('<', commaSep1($._type), '>'),

    // The result extends as far as a type can: `(Num) -> Str | Null` returns the union.
    function_type: ($) =>
      seq('(', commaSep(field('parameter', $._type)), ')', '->', field('result', $._type)),

    // `T?`: absent or null.
    optional_type: ($) => seq(field('type', $._single_type), '?'),

    // `A | B | C`; a union of string literals (`"low" | "high"`) is a string enum, as JSON Schema `enum`.
    union_type: ($) => prec.left(seq(field('member', $._single_type), repeat1(seq('|', field('member', $._single_type))))),

    // `"yes"`, `3`, `-1.5`, `true`, `false`, `null` as types.
    literal_type: ($) => choice($.string, seq(optional('-'), $.number), $.true, $.false, $.null),

    parenthesized_type: ($) => seq('(', $._type, ')'),

    // ------------------------------------------------------------------ expressions

    _expression: ($) =>
      choice(
        $.identifier,
        // `ask` stays usable as a name (Turn v1 programs use it): a contextual keyword (ask_expression)
        alias('ask', $.identifier),
        $.number,
        $.string,
        $.true,
        $.false,
        $.null,
        $.list,
        $.map,
        $.struct_literal,
        $.vec_literal,
        $.closure,
        $.parenthesized_expression,
        $.binary_expression,
        $.unary_expression,
        $.index_expression,
        $.member_expression,
        $.method_call,
        $.call_expression,
        $.builtin_call,
        $.list_operation,
        $.use_expression,
        $.use_schema,
        $.grant_expression,
        $.infer_expression,
        $.ask_expression,
        $.confidence_expression,
        $.spawn_expression,
        $.spawn_each,
        $.gather_expression,
        $.receive,
        $.send_expression,
        $.remember_expression,
        $.recall_expression,
        $.context_call,
        $.invoke_expression,
        $.scope_expression,
        $.task_expression,
        $.detach_expression,
      ),

    parenthesized_expression: ($) => seq('(', $._expression, ')'),

    list: ($) => seq('[', commaSep($._expression), ']'),

    map: ($) => seq('{', commaSep(field('entry', $.map_entry)), '}'),

    map_entry: ($) => seq(field('key', $.string), ':', field('value', $._expression)),

    struct_literal: ($) =>
      seq(
        field('name', typeName($)),
        '{',
        commaSep(choice(field('field', $.field_initializer), field('spread', $.spread_element))),
        '}',
      ),

    field_initializer: ($) => seq(field('name', fieldName($)), ':', field('value', $._expression)),

    spread_element: ($) => seq('..', $._expression),

    vec_literal: ($) => seq('vec', '[', commaSep($._expression), ']'),

    // `turn(a: T) -> R { ... }`; `turn { ... }` without parameters is a closure too (Turn v1), except
    // as a top-level statement, where it is the entry block.
    closure: ($) =>
      seq(
        'turn',
        optional(field('parameters', $.parameters)),
        optional(seq('->', field('return_type', $._type))),
        field('body', $.block),
      ),

    parameters: ($) => seq('(', commaSep(field('parameter', $.parameter)), ')'),

    parameter: ($) => seq(field('name', $.identifier), optional(seq(':', field('type', $._type)))),

    binary_expression: ($) => {
      const table = [
        [PREC.or, 'or'],
        [PREC.and, 'and'],
        [PREC.equality, choice('==', '!=', '~>')],
        [PREC.compare, choice('<', '>', '<=', '>=')],
        [PREC.additive, choice('+', '-')],
        [PREC.multiplicative, choice('*', '/')],
      ];
      return choice(
        ...table.map(([p, op]) =>
          prec.left(p, seq(field('left', $._expression), field('operator', op), field('right', $._expression))),
        ),
      );
    },

    unary_expression: ($) => prec(PREC.unary, seq(field('operator', choice('!', '-')), field('operand', $._expression))),

    index_expression: ($) =>
      prec(PREC.postfix, seq(field('target', $._expression), '[', field('index', $._expression), ']')),

    member_expression: ($) =>
      prec(PREC.postfix, seq(field('target', $._expression), '.', field('name', fieldName($)))),

    method_call: ($) =>
      prec(
        PREC.postfix + 1,
        seq(field('target', $._expression), '.', field('name', fieldName($)), field('arguments', $.arguments)),
      ),

    call_expression: ($) => prec(PREC.postfix, seq(field('function', $._expression), field('arguments', $.arguments))),

    arguments: ($) => seq('(', commaSep($._expression), ')'),

    // `call(f, a, b)` — a closure application or a host tool call.
    builtin_call: ($) => seq('call', field('arguments', $.arguments)),

    // `map(list, f)` / `filter(list, f)`
    list_operation: ($) => seq(field('operator', choice('map', 'filter')), field('arguments', $.arguments)),

    use_expression: ($) => seq('use', field('path', $.string)),

    use_schema: ($) =>
      seq('use', 'schema', '::', field('protocol', $.identifier), '(', field('source', $._expression), ')'),

    grant_expression: ($) =>
      seq('grant', 'identity', '::', field('kind', $.identifier), '(', field('name', $._expression), ')'),

    // `infer T { prompt; }`, or `infer T with { max_tokens: 200, consistency: 3 } { prompt; }`: options
    // of this one model call, over the run's (`--max-tokens`, `--seed`, ...); names are checked by the analyzer.
    infer_expression: ($) =>
      seq('infer', field('type', $._type), optional(seq('with', field('options', $.infer_options))), field('body', $.block)),

    // `ask T { prompt; }`: the same block and types as `infer`, answered by a person (docs/language.md).
    ask_expression: ($) =>
      seq('ask', field('type', $._type), optional(seq('with', field('options', $.infer_options))), field('body', $.block)),

    infer_options: ($) => seq('{', commaSep(field('option', $.infer_option)), '}'),

    infer_option: ($) => seq(field('name', $.identifier), ':', field('value', $._expression)),

    confidence_expression: ($) => prec(PREC.unary, seq('confidence', field('operand', $._expression))),

    spawn_expression: ($) =>
      prec(PREC.unary, seq(field('mode', choice('spawn', 'spawn_link')), field('body', $._expression))),

    spawn_each: ($) => seq('spawn_each', field('arguments', $.arguments)),

    gather_expression: ($) => prec(PREC.unary, seq('gather', field('operand', $._expression))),

    // `receive`, or `receive(ms)`: waits at most `ms` milliseconds, then yields `null`.
    receive: ($) => prec.right(seq('receive', optional(seq('(', field('timeout', $._expression), ')')))),

    // `send pid, message` — the message extends as far as an expression can.
    send_expression: ($) =>
      prec.right(0, seq('send', field('pid', $._expression), ',', field('message', $._expression))),

    remember_expression: ($) =>
      seq('remember', '(', field('key', $._expression), ',', field('value', $._expression), optional(','), ')'),

    recall_expression: ($) => seq('recall', '(', field('key', $._expression), optional(','), ')'),

    context_call: ($) =>
      seq('context', '.', field('operation', choice('append', 'system')), '(', field('argument', $._expression), optional(','), ')'),

    // `invoke f(x)` / `invoke turn() { ... }`: a scoped invocation. The callee starts from a snapshot
    // of the caller's context, and its context changes vanish when it returns.
    invoke_expression: ($) => prec(PREC.unary, seq('invoke', field('call', $._expression))),

    // `scope wait_all { task turn() { ... }; ... }`: concurrent tasks owned by the scope, with an
    // explicit failure policy (fail_fast, wait_all, first_success); the value is their results.
    scope_expression: ($) => seq('scope', field('policy', $.identifier), field('body', $.block)),

    task_expression: ($) => prec(PREC.unary, seq('task', field('body', $._expression))),

    // `detach turn() { ... }`: a process owned by the runtime, not by its creator; yields a handle.
    detach_expression: ($) => prec(PREC.unary, seq('detach', field('body', $._expression))),

    // ------------------------------------------------------------------ tokens

    identifier: (_) => /[_\p{XID_Start}][_\p{XID_Continue}]*/,

    number: (_) => token(seq(/[0-9]+/, optional(seq('.', /[0-9]+/)), optional(seq(/[eE]/, optional(/[+-]/), /[0-9]+/)))),

    string: ($) => seq('"', repeat(choice($.string_content, $.escape_sequence)), '"'),

    string_content: (_) => token.immediate(prec(1, /[^"\\]+/)),

    escape_sequence: (_) => token.immediate(seq('\\', choice(/[nrt0"\\\/]/, /u\{[0-9a-fA-F]{1,6}\}/, /u[0-9a-fA-F]{4}/))),

    true: (_) => 'true',
    false: (_) => 'false',
    null: (_) => 'null',

    // `///` then anything but a fourth `/` (a `////` line is a plain comment).
    doc_comment: (_) => token(seq('///', optional(seq(/[^/\n]/, /[^\n]*/)))),

    // `//` and `////...`, never `///`, which is a doc comment.
    line_comment: (_) => token(choice(seq('//', optional(seq(/[^/\n]/, /[^\n]*/))), seq('////', /[^\n]*/))),

    block_comment: (_) => token(seq('/*', /[^*]*\*+([^/*][^*]*\*+)*/, '/')),
  },
});
