// The stdio transport of a launched MCP server. The SDK's StdioClientTransport always adds HOME,
// PATH, USER... to the child's environment; a Turn run gives a server only what its grant names,
// so the process is started here (no shell, exactly the environment given) and framed with the
// SDK's newline-delimited JSON-RPC messages. Reading is bounded (lines.ts): a message over
// `maxReplyBytes` is dropped as it arrives and the request it answers fails with an error that
// names the bound, so a huge reply can neither exhaust memory nor crash the process.
import { spawn, type ChildProcess } from 'node:child_process';
import { deserializeMessage, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Launch } from './launch.js';
import { BoundedLineReader, idCandidates } from './lines.js';

/** The last bytes of a server's standard error kept for messages (a server that will not start says why there). */
const STDERR_KEPT = 4096;
/** The most one message from a server may be by default: 16 MiB (`max_reply_bytes` in the launch map raises it). */
export const DEFAULT_MAX_REPLY_BYTES = 16 * 1024 * 1024;
/** The JSON-RPC error code of the error that answers a request whose reply was over the bound (session.ts shows its message alone). */
export const REPLY_TOO_LARGE = -32099;
/** The error code of the reply stdio.ts makes for a server's reply that is not valid JSON-RPC. */
export const MALFORMED_REPLY = -32098;
/** Messages read and not yet handed to the SDK past which the server's output is paused (a flood waits for the client). */
const INBOX_HIGH = 256;

/** Whether a message's first bytes are `{"method": ...` or `{"jsonrpc": "2.0", "method": ...` (a notification or a request). */
function startsWithMethod(head: string): boolean {
  const compact = head.replace(/\s+/g, '');
  return compact.startsWith('{"method":') || compact.startsWith('{"jsonrpc":"2.0","method":');
}

/** `n` bytes for a message: "16 MiB" when it is a whole number of MiB, else the bytes. */
export function describeBytes(n: number): string {
  return n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MiB` : `${n.toLocaleString('en-US')} bytes`;
}

export class LaunchedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcess | undefined;
  private readonly lines: BoundedLineReader;
  /** the ids of the requests sent and not yet answered */
  private readonly pending = new Set<string | number>();
  /** messages read but not yet handed to the SDK */
  private readonly inbox: JSONRPCMessage[] = [];
  private delivering = false;
  private stderrTail = '';
  private exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;

  constructor(
    private readonly launch: Launch,
    readonly maxReplyBytes: number = DEFAULT_MAX_REPLY_BYTES,
  ) {
    this.lines = new BoundedLineReader(maxReplyBytes);
  }

  /** The server process's id, once started. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** What the server last wrote to standard error (for a message when it fails). */
  get stderr(): string {
    return this.stderrTail.trim();
  }

  /** How it ended, once it has. */
  get exit(): { code: number | null; signal: NodeJS.Signals | null } | undefined {
    return this.exited;
  }

  /**
   * The server was started by the revision probe (stdio-revision.ts): the client it is handed to
   * next calls start() on a running process, which is then no new start.
   */
  handOver(): void {
    this.handedOver = true;
  }
  private handedOver = false;

  start(): Promise<void> {
    if (this.child && this.handedOver) {
      this.handedOver = false;
      return Promise.resolve();
    }
    if (this.child) throw new Error('the MCP server is already started');
    return new Promise((resolve, reject) => {
      const child = spawn(this.launch.file, this.launch.args, { env: this.launch.env, cwd: this.launch.cwd, stdio: ['pipe', 'pipe', 'pipe'], shell: false, windowsHide: true });
      this.child = child;
      child.on('error', (e) => {
        reject(e);
        this.onerror?.(e);
      });
      child.on('spawn', () => resolve());
      child.on('exit', (code, signal) => {
        this.exited = { code, signal };
      });
      child.on('close', () => {
        this.child = undefined;
        this.pending.clear(); // the SDK fails them all on close
        this.onclose?.();
      });
      child.stdin?.on('error', (e) => this.onerror?.(e));
      child.stdout?.on('data', (chunk: Buffer) => {
        for (const line of this.lines.push(chunk)) {
          if (line.kind === 'oversized') {
            this.refuseOversized(line.bytes, line.head, line.tail);
            continue;
          }
          if (line.text.trim() === '') continue;
          try {
            this.inbox.push(deserializeMessage(line.text));
          } catch (e) {
            this.refuseMalformed(line.text, e as Error);
          }
        }
        if (this.inbox.length > INBOX_HIGH) child.stdout?.pause();
        this.deliver();
      });
      child.stderr?.on('data', (chunk: Buffer) => {
        this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_KEPT);
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || !stdin.writable) return reject(new Error('the MCP server is not running'));
      if ('method' in message && 'id' in message) this.pending.add(message.id);
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', () => resolve());
    });
  }

  /** Ends the server: its standard input is closed, then SIGTERM, then SIGKILL if it lingers. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    child.stdin?.end();
    const term = setTimeout(() => child.kill('SIGTERM'), 2000);
    const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
    term.unref();
    kill.unref();
    await closed;
    clearTimeout(term);
    clearTimeout(kill);
    this.lines.clear();
  }

  /**
   * A message over the bound was dropped: the request it answers (found by the id in its kept ends)
   * gets an error reply instead. A notification (it starts with its method) answers nothing and is
   * only reported; a message whose pending id cannot be found fails every pending request, so none
   * waits for a reply that will never come.
   */
  private refuseOversized(bytes: number, head: string, tail: string): void {
    const id = idCandidates(head, tail).find((i) => this.pending.has(i));
    if (id === undefined && startsWithMethod(head)) {
      this.onerror?.(new Error(`the server sent a notification of ${bytes.toLocaleString('en-US')} bytes, over ${describeBytes(this.maxReplyBytes)}: dropped`));
      return;
    }
    const failed = id !== undefined ? [id] : [...this.pending];
    const message =
      `the server's reply is over ${describeBytes(this.maxReplyBytes)} (it was ${bytes.toLocaleString('en-US')} bytes), the most one MCP message may be; ` +
      `it was dropped unread (raise the bound with "max_reply_bytes" in the server's launch map)`;
    for (const i of failed) this.inbox.push({ jsonrpc: '2.0', id: i, error: { code: REPLY_TOO_LARGE, message } });
  }

  /**
   * A line that is not a JSON-RPC message. The SDK drops such a line (through `onerror`), so a reply
   * that is JSON with the id of a pending request but not a valid response (a `result` that is a
   * list, a number...) would leave its request waiting until the tool's time limit: it gets an error
   * reply instead, at once. Any other line (a server's stray log output) is only reported.
   */
  private refuseMalformed(text: string, e: Error): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      this.onerror?.(e);
      return;
    }
    const id = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) && !('method' in parsed) ? (parsed as { id?: unknown }).id : undefined;
    if ((typeof id !== 'string' && typeof id !== 'number') || !this.pending.has(id)) {
      this.onerror?.(e);
      return;
    }
    const shown = text.length > 200 ? `${text.slice(0, 200)}...` : text;
    this.inbox.push({ jsonrpc: '2.0', id, error: { code: MALFORMED_REPLY, message: `the server's reply is not a valid JSON-RPC response (a response holds an object as its result, or an error): ${shown}` } });
  }

  /**
   * Hands messages to the SDK one per turn of the event loop. The SDK runs a notification's handler
   * a microtask later but a response's at once, so a progress notification and the reply that follows
   * it in one chunk of output would lose the notification (the reply removes its progress handler
   * first); a turn between them lets the notification's handler run.
   */
  private deliver(): void {
    if (this.delivering) return;
    const next = this.inbox.shift();
    if (next === undefined) return;
    if (this.inbox.length <= INBOX_HIGH / 2) this.child?.stdout?.resume();
    if ('id' in next && !('method' in next) && next.id !== undefined) this.pending.delete(next.id);
    this.delivering = true;
    this.onmessage?.(next);
    setImmediate(() => {
      this.delivering = false;
      this.deliver();
    });
  }
}
