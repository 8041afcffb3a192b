// A per-process model context with three tiers: P0 system entries (never evicted), P1 working
// entries (the most recent), P2 episodic entries (what was pushed out of P1). Rendered P0, P2, P1.
// Bounds count entries for now; a later issue replaces them with token budgets.

export interface ContextLimits {
  working: number;
  episodic: number;
}

export const DEFAULT_LIMITS: ContextLimits = { working: 64, episodic: 256 };

export class Context {
  system: string[] = [];
  working: string[] = [];
  episodic: string[] = [];

  constructor(public limits: ContextLimits = DEFAULT_LIMITS) {}

  addSystem(entry: string): void {
    this.system.push(entry);
  }

  append(entry: string): void {
    this.working.push(entry);
    while (this.working.length > this.limits.working) {
      this.episodic.push(this.working.shift()!);
    }
    while (this.episodic.length > this.limits.episodic) this.episodic.shift();
  }

  render(): string[] {
    return [...this.system, ...this.episodic, ...this.working];
  }

  snapshot(): Context {
    const c = new Context(this.limits);
    c.system = this.system.slice();
    c.working = this.working.slice();
    c.episodic = this.episodic.slice();
    return c;
  }
}
