// A Turn process: plain data (frames, stack, handlers, memory, context, mailbox) so that a later
// issue can serialize it. Closures and prototypes are referenced by id.
import { Context } from '../context/index.js';
import type { ClosureVal, Value } from './values.js';

export const READY = 0;
export const BLOCKED = 1;
export const EFFECT = 2;
export const DONE = 3;
export const FAILED = 4;

/** What `exec` reports back to the scheduler. */
export const YIELD = 5;

export interface Frame {
  closure: ClosureVal;
  /** prototype id (closure.proto) */
  proto: number;
  /** next instruction (saved when the frame is not running) */
  ip: number;
  /** stack index of local slot 0 */
  bp: number;
  /** stack height to restore when the frame returns (before pushing the result) */
  ret: number;
  /** unit index when this frame runs a module's top level (`use`), else -1 */
  module: number;
}

export interface Handler {
  /** index of the frame that owns the `try` */
  frame: number;
  /** handler code address */
  ip: number;
  /** stack height at `try` */
  sp: number;
}

export interface Site {
  path: string;
  line: number;
  column: number;
}

export interface StackEntry extends Site {
  fn: string;
}

export interface Failure {
  value: Value;
  site: Site;
  stack: StackEntry[];
}

export interface PendingEffect {
  kind: 'infer';
  /** constant index of the InferDesc in the running prototype */
  desc: { typeName: string; schema: object };
  request: { typeName: string; schema: object; prompt: string; context: string[]; pid: number };
}

export class Process {
  status = READY;
  stack: Value[] = [];
  sp = 0;
  frames: Frame[] = [];
  handlers: Handler[] = [];
  memory = new Map<string, Value>();
  context = new Context();
  mailbox: Value[] = [];
  /** what a BLOCKED process waits for */
  waiting: 'receive' | 'gather' | null = null;
  effect: PendingEffect | null = null;
  result: Value = null;
  failure: Failure | null = null;
  /** pids of processes blocked in `gather` on this one */
  watchers: number[] = [];
  /** module units whose top level is running in this process (cycle detection) */
  loading: number[] = [];

  constructor(
    readonly id: number,
    readonly parent: number,
    readonly linked: boolean,
  ) {}

  get finished(): boolean {
    return this.status === DONE || this.status === FAILED;
  }
}
