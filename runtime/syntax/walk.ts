// A generic pre-order walk over AST nodes (anything with a `kind`), for passes that only look
// for a few node kinds and do not need the analyzer's scoping.
import type { Node } from './ast.js';

export function walk(node: Node, visit: (node: Node) => void): void {
  const stack: unknown[] = [node];
  while (stack.length > 0) {
    const current = stack.pop();
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push(current[i]);
      continue;
    }
    if (!current || typeof current !== 'object') continue;
    if ('kind' in current) visit(current as Node);
    for (const key in current) {
      if (key === 'span') continue;
      const value = (current as Record<string, unknown>)[key];
      if (value && typeof value === 'object') stack.push(value);
    }
  }
}
