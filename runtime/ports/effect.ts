// What a process waits on when it yields to the scheduler for the host: a model exchange or an
// effect tool. Shared by the VM (which creates them) and the durability layer (which journals them).
import type { InferCall } from '../infer/driver.js';
import type { ToolRequest } from './host.js';

export type PendingEffect =
  | {
      kind: 'infer';
      /** constant index of the InferDesc in the running prototype */
      desc: { typeName: string; schema: object };
      /** what the model is asked (the context tiers as they were at the `infer`) */
      request: InferCall;
    }
  | {
      /** a host tool with an effect (files, HTTP, environment, clock, random) */
      kind: 'tool';
      request: ToolRequest;
    };

/** A process as the ports see it: its id, and for timers its sleep state. */
export interface ProcessRef {
  readonly id: number;
}

export interface Sleeper extends ProcessRef {
  /** the scheduler's status code (1 = blocked) */
  status: number;
  /** when a `receive(ms)` / sleep times out (ms on the VM's clock), or null */
  deadline: number | null;
}
