// The stdio transport of a launched MCP server. The SDK's StdioClientTransport always adds HOME,
// PATH, USER... to the child's environment; a Turn run gives a server only what its grant names,
// so the process is started here (no shell, exactly the environment given) and framed with the
// SDK's own newline-delimited JSON-RPC reader and writer.
import { spawn, type ChildProcess } from 'node:child_process';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Launch } from './launch.js';

/** The last bytes of a server's standard error kept for messages (a server that will not start says why there). */
const STDERR_KEPT = 4096;

export class LaunchedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcess | undefined;
  private readonly buffer = new ReadBuffer();
  /** messages read but not yet handed to the SDK */
  private readonly inbox: JSONRPCMessage[] = [];
  private delivering = false;
  private stderrTail = '';
  private exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;

  constructor(private readonly launch: Launch) {}

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

  start(): Promise<void> {
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
        this.onclose?.();
      });
      child.stdin?.on('error', (e) => this.onerror?.(e));
      child.stdout?.on('data', (chunk: Buffer) => {
        this.buffer.append(chunk);
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = this.buffer.readMessage();
          } catch (e) {
            this.onerror?.(e as Error);
            continue;
          }
          if (message === null) break;
          this.inbox.push(message);
        }
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
    this.buffer.clear();
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
    this.delivering = true;
    this.onmessage?.(next);
    setImmediate(() => {
      this.delivering = false;
      this.deliver();
    });
  }
}
