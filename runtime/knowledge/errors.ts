/** A knowledge-store failure; the VM shows its message to the program as an EffectError. */
export class KnowledgeError extends Error {}
