// Syntax errors of the slips a newcomer makes, recognised from the parser's error node and said in
// Turn's words: the token at fault, and a second line with what Turn writes instead. Never a
// grammar node's name (the fallbacks in lower.ts describe those too).
import type { Node as CstNode } from 'web-tree-sitter';
import type * as A from './ast.js';

export interface SyntaxProblem {
  span: A.Span;
  message: string;
}

/** The message with its hint as a short second line. */
export function withHint(message: string, hint: string): string {
  return `${message}\nhint: ${hint}`;
}

const leafSpan = (n: CstNode): A.Span => ({ start: n.startIndex, end: n.endIndex });

/**
 * A slip recognised in an ERROR node (its leaves in source order), or undefined to fall back to
 * the plain "unexpected" message.
 */
export function slipInError(node: CstNode, leaves: CstNode[]): SyntaxProblem | undefined {
  // `c ? a : b`: the `?` is the token at fault
  const question = leaves.findIndex((l) => l.type === '?');
  if (question >= 0 && leaves.slice(question + 1).some((l) => l.type === ':')) {
    return {
      span: leafSpan(leaves[question]),
      message: withHint('syntax error: unexpected `?`', 'Turn has no conditional expression (`c ? a : b`): write `if c { let x = a; } else { let x = b; }`'),
    };
  }
  // `x = 2;` at statement level: the error holds the name and the `=`
  if (leaves.length === 2 && leaves[0].type === 'identifier' && leaves[1].type === '=') {
    const name = leaves[0].text;
    return { span: leafSpan(leaves[1]), message: withHint('syntax error: unexpected `=`', `Turn updates a variable with \`let ${name} = ...;\``) };
  }
  // `x += 1;`: the parser read `x +` and could not fit the `=`
  if (leaves.length === 1 && leaves[0].type === '=') {
    const op = node.previousSibling;
    const target = op?.previousSibling;
    if (op && ['+', '-', '*', '/'].includes(op.type) && op.endIndex === node.startIndex) {
      const name = target?.type === 'identifier' ? target.text : 'x';
      return {
        span: { start: op.startIndex, end: node.endIndex },
        message: withHint(`syntax error: unexpected \`${op.type}=\``, `Turn has no \`${op.type}=\`: write \`let ${name} = ${name} ${op.type} ...;\``),
      };
    }
  }
  // `{name: "Ada"}`: a map key written as a bare name
  if (node.parent?.type === 'map' && leaves.length >= 2 && leaves[0].type === 'identifier' && leaves[1].type === ':') {
    const key = leaves[0].text;
    return {
      span: leafSpan(leaves[0]),
      message: withHint(`syntax error: a map key is a string: write \`"${key}": ...\``, `a struct's value is written with its name, \`Person { ${key}: ... }\``),
    };
  }
  return undefined;
}

/** Names for what the parser expected, where its own name for it is a grammar node's. */
const EXPECTED: Record<string, string> = {
  identifier: 'an expression',
  type_identifier: 'a type',
  string: 'a string',
  number: 'a number',
  block: 'a block `{ ... }`',
};

/** What a MISSING node stands for, in words (a token is shown as itself). */
export function describeExpected(type: string): string {
  if (Object.hasOwn(EXPECTED, type)) return EXPECTED[type];
  // a named node: words, never its name
  if (/^[a-z]+(_[a-z]+)+$/.test(type)) return 'a ' + type.replace(/_/g, ' ');
  return '`' + type + '`';
}

/** A MISSING node the slips explain: `infer` without its type, a statement without its `;`. */
export function slipInMissing(node: CstNode, text: string): SyntaxProblem | undefined {
  if (node.type === 'type_identifier' && node.parent?.type === 'infer_expression') {
    return {
      span: { start: node.startIndex, end: node.startIndex },
      message: withHint('syntax error: `infer` needs the type of its answer', 'write it before the block: `infer Str { ... }` (or Num, Bool, a struct, a List of them)'),
    };
  }
  if (node.type === ';') {
    // right after the statement it should close, not at the next line's first letter
    let at = node.startIndex;
    while (at > 0 && /\s/.test(text[at - 1])) at--;
    const before = node.previousSibling;
    const shown = before && before.endIndex - before.startIndex <= 30 && !before.text.includes('\n') ? ` after \`${before.text}\`` : '';
    return { span: { start: at, end: at }, message: withHint(`syntax error: expected \`;\`${shown}`, 'each statement ends with `;`') };
  }
  return undefined;
}
