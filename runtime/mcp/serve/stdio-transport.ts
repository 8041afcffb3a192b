// `turn mcp`'s standard input/output transport: newline-delimited JSON-RPC, each message at most
// `maxBytes`. The SDK's StdioServerTransport holds a line whole and, at its 10 MB buffer bound,
// throws and closes: the server exited 0 without a word to the client. Here a longer message is
// never held (lines.ts counts and drops it as it arrives) and is answered with a JSON-RPC
// invalid-request error naming the bound, for the id found at either end of the message (null when
// none is); the connection stays open. A line that is not JSON is answered with a parse error.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { BoundedLineReader, idCandidates } from '../lines.js';

/** The most one message from the client may be, unless the server is told otherwise (ServeOptions.maxMessageBytes). */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

export class BoundedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly reader: BoundedLineReader;
  private closed = false;

  constructor(
    private readonly parse: (value: unknown) => { success: true; data: JSONRPCMessage } | { success: false },
    readonly maxBytes = MAX_MESSAGE_BYTES,
    private readonly input: NodeJS.ReadableStream = process.stdin,
    private readonly output: NodeJS.WritableStream = process.stdout,
  ) {
    this.reader = new BoundedLineReader(maxBytes);
  }

  private readonly ondata = (chunk: Buffer | string): void => {
    for (const line of this.reader.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)) {
      if (line.kind === 'oversized') {
        const id = idCandidates(line.head, line.tail)[0] ?? null;
        void this.answerError(id, -32600, `the message is ${line.bytes.toLocaleString('en-US')} bytes, over ${this.maxBytes.toLocaleString('en-US')}, the most one message to this server may be: it was dropped unread`);
        continue;
      }
      if (line.text.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(line.text);
      } catch {
        void this.answerError(null, -32700, 'parse error: the message is not JSON');
        continue;
      }
      const parsed = this.parse(value);
      if (!parsed.success) {
        const id = value && typeof value === 'object' && 'id' in value && (typeof value.id === 'string' || typeof value.id === 'number') ? value.id : null;
        void this.answerError(id, -32600, 'invalid request: not a JSON-RPC 2.0 message');
        continue;
      }
      this.onmessage?.(parsed.data);
    }
  };

  private readonly onend = (): void => void this.close();
  private readonly onstreamerror = (e: Error): void => this.onerror?.(e);

  private answerError(id: string | number | null, code: number, message: string): Promise<void> {
    // the SDK's message type wants an id; JSON-RPC answers an unidentifiable request with null
    return this.send({ jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage);
  }

  start(): Promise<void> {
    this.input.on('data', this.ondata);
    this.input.on('end', this.onend);
    this.input.on('error', this.onstreamerror);
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.write(JSON.stringify(message) + '\n')) resolve();
      else this.output.once('drain', () => resolve());
    });
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.input.off('data', this.ondata);
    this.input.off('end', this.onend);
    this.input.off('error', this.onstreamerror);
    this.reader.clear();
    this.onclose?.();
    return Promise.resolve();
  }
}
