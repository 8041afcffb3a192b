// The actor tree's rows in order, without the DOM (tested in Node): depth first, children under
// their parent, iterative (a chain of thousands of actors does not recurse).
import type { ActorView } from '../../protocol/panel.js';

export interface TreeRow {
  a: ActorView;
  depth: number;
}

/** The actors in tree order (depth first, children under their parent), each with its depth. */
export function treeOrder(actors: ActorView[]): TreeRow[] {
  const byParent = new Map<number, ActorView[]>();
  for (const a of actors) {
    const list = byParent.get(a.parent) ?? [];
    list.push(a);
    byParent.set(a.parent, list);
  }
  const known = new Set(actors.map((a) => a.pid));
  const out: TreeRow[] = [];
  const seen = new Set<number>();
  const stack: TreeRow[] = actors.filter((a) => !known.has(a.parent)).reverse().map((a) => ({ a, depth: 0 }));
  while (stack.length > 0) {
    const r = stack.pop()!;
    if (seen.has(r.a.pid)) continue;
    seen.add(r.a.pid);
    out.push(r);
    const kids = byParent.get(r.a.pid) ?? [];
    for (let i = kids.length - 1; i >= 0; i--) stack.push({ a: kids[i], depth: r.depth + 1 });
  }
  return out;
}
