// A mark for errors the host raised before anything of an effect left the process (no imports:
// the effects, the providers, the MCP client and the durability layer all use it).
/**
 * Refusals before sending (docs/durability.md, *Refusals are not outcomes*): an effect the host
 * refused before anything left the process — a secret that is not set, a grant that does not
 * allow it, an approval that was denied. In a durable run such an error is not the effect's
 * outcome: the journal keeps the step unrun, the run stops resumable, and a resume under the
 * missing secret or grant runs the step then. Errors are marked by the host code that throws
 * them (never by their shape or message, which a server's reply could imitate).
 */
const refusedBeforeSending = new WeakSet<object>();

/** Marks `e` as a refusal before anything was sent; returns it. */
export function markRefusedBeforeSending<E extends Error>(e: E): E {
  refusedBeforeSending.add(e);
  return e;
}

export function isRefusedBeforeSending(e: unknown): boolean {
  return typeof e === 'object' && e !== null && refusedBeforeSending.has(e);
}
