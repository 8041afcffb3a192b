// The language server on a large file, side by side with Turn v1's (issue 45): both servers run as
// whole processes over stdio on the same generated program (bench/lsp.ts's generator), and the
// figures are those an editor sees:
//  - first diagnostics: from sending didOpen to the first publishDiagnostics for it;
//  - completion after an edit: a didChange in the middle of the file, then at once a completion
//    request; the time until its answer (the re-check of the edit may still be pending);
//  - hover after an edit: the same with a hover request;
//  - peak memory: the server process's VmHWM (Linux /proc) at the end.
// Turn v1 runs only when TURN_V1_BIN names its binary (`turn lsp`); without it its column is empty.
// Caveat: Turn v1's parser stops at the generated program's first method call (line 17), so its
// column is not yet like for like (docs/performance.md, "The language server at 45,000 lines").
// Run: `node --import tsx bench/lsp-peer.ts [lines]` (default 45,000). TURN_LSP_PROFILE=DIR starts our
// server with --cpu-prof into DIR.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { generateProgram } from './lsp.js';

const ROOT = path.join(__dirname, '..');
const BIN = path.join(ROOT, 'bin', 'turn.js');

interface Message {
  id?: number;
  method?: string;
  params?: { version?: number; uri?: string };
  result?: unknown;
}

/** A minimal LSP client over a child's stdio: requests by id, notifications by a waiter. */
class StdioClient {
  private buf = Buffer.alloc(0);
  private nextId = 1;
  private readonly answers = new Map<number, (m: Message) => void>();
  private readonly listeners: ((m: Message) => void)[] = [];
  constructor(readonly child: ChildProcessByStdio<Writable, Readable, null>) {
    child.stdout.on('data', (d: Buffer) => this.read(d));
  }
  private read(d: Buffer): void {
    this.buf = Buffer.concat([this.buf, d]);
    for (;;) {
      const head = this.buf.indexOf('\r\n\r\n');
      if (head < 0) return;
      const len = Number(/Content-Length: (\d+)/i.exec(this.buf.subarray(0, head).toString())?.[1]);
      if (this.buf.length < head + 4 + len) return;
      const msg = JSON.parse(this.buf.subarray(head + 4, head + 4 + len).toString()) as Message;
      this.buf = this.buf.subarray(head + 4 + len);
      if (msg.id !== undefined && !msg.method) this.answers.get(msg.id)?.(msg);
      else if (msg.method) {
        if (msg.id !== undefined) this.send({ id: msg.id, result: null }); // server → client requests
        for (const l of [...this.listeners]) l(msg);
      }
    }
  }
  send(msg: object): void {
    const body = JSON.stringify({ jsonrpc: '2.0', ...msg });
    this.child.stdin.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  }
  request(method: string, params: unknown): Promise<Message> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.answers.set(id, resolve);
      this.send({ id, method, params });
    });
  }
  notify(method: string, params: unknown): void {
    this.send({ method, params });
  }
  /** Resolves with the next notification `match` accepts. */
  next(match: (m: Message) => boolean): Promise<Message> {
    return new Promise((resolve) => {
      const l = (m: Message) => {
        if (!match(m)) return;
        this.listeners.splice(this.listeners.indexOf(l), 1);
        resolve(m);
      };
      this.listeners.push(l);
    });
  }
}

function peakRssMb(pid: number): number | undefined {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

export interface PeerFigures {
  firstDiagnosticsMs: number;
  completionAfterEditMs: number[];
  hoverAfterEditMs: number[];
  editToDiagnosticsMs: number[];
  peakRssMb?: number;
}

const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

/** Drives one server (`command args`) through the figures above on `text`. */
export async function measureServer(command: string, args: string[], text: string, edits = 9): Promise<PeerFigures> {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
  const client = new StdioClient(child);
  try {
    const dir = fs.mkdtempSync('/tmp/turn-lsp-bench-');
    const file = path.join(dir, 'generated.tn');
    fs.writeFileSync(file, text);
    const uri = `file://${file}`;
    const init = (await client.request('initialize', { processId: process.pid, rootUri: `file://${dir}`, capabilities: {} })).result as {
      capabilities?: { textDocumentSync?: number | { change?: number } };
    };
    // A server that syncs whole documents (Turn v1's) is sent the whole new text of each edit.
    const sync = init.capabilities?.textDocumentSync;
    const fullSync = (typeof sync === 'number' ? sync : sync?.change) === 1;
    client.notify('initialized', {});
    const diagnosticsOf = () => client.next((m) => m.method === 'textDocument/publishDiagnostics' && m.params?.uri === uri);
    let published = diagnosticsOf();
    let start = process.hrtime.bigint();
    client.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'turn', version: 1, text } });
    await published;
    const firstDiagnosticsMs = ms(start);

    const lines = text.split('\n');
    const target = lines.findIndex((l, i) => i > lines.length / 2 && /^let item\d+ = make\d+\(\d+\);$/.test(l));
    const column = lines[target].indexOf('(') + 1;
    const memberLine = target + 1; // `let wN = itemN.heavier(2) + itemN.weight;`
    const dot = lines[memberLine].indexOf('.') + 1;
    const ranged = (i: number) =>
      i % 2 === 0
        ? { range: { start: { line: target, character: column }, end: { line: target, character: column } }, text: '7' }
        : { range: { start: { line: target, character: column }, end: { line: target, character: column + 1 } }, text: '' };
    const toggle = (i: number) => {
      if (!fullSync) return ranged(i);
      const edited = [...lines];
      edited[target] = i % 2 === 0 ? lines[target].slice(0, column) + '7' + lines[target].slice(column) : lines[target];
      return { text: edited.join('\n') };
    };
    const completion: number[] = [];
    const hover: number[] = [];
    const diagnostics: number[] = [];
    let version = 1;
    for (let i = 0; i < edits * 2; i++) {
      version++;
      published = diagnosticsOf();
      start = process.hrtime.bigint();
      client.notify('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [toggle(i)] });
      if (i % 2 === 0) {
        await client.request('textDocument/completion', { textDocument: { uri }, position: { line: memberLine, character: dot } });
        completion.push(ms(start));
      } else {
        await client.request('textDocument/hover', { textDocument: { uri }, position: { line: memberLine, character: 5 } });
        hover.push(ms(start));
      }
      await published;
      diagnostics.push(ms(start));
    }
    const peak = peakRssMb(child.pid!);
    return { firstDiagnosticsMs, completionAfterEditMs: completion, hoverAfterEditMs: hover, editToDiagnosticsMs: diagnostics, peakRssMb: peak };
  } finally {
    // shutdown + exit lets a profiled server write its profile; a server that ignores them is killed
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const timer = setTimeout(() => child.kill(), 5000);
    void client.request('shutdown', null).then(() => client.notify('exit', null));
    await exited;
    clearTimeout(timer);
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const lines = Number(process.argv[2] ?? 45_000);
  const text = generateProgram(lines);
  const profile = process.env.TURN_LSP_PROFILE;
  const ours = await measureServer(process.execPath, [...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []), BIN, 'lsp', '--stdio'], text);
  const v1Bin = process.env.TURN_V1_BIN;
  const v1 = v1Bin ? await measureServer(v1Bin, ['lsp'], text) : undefined;
  const f = (x: number | undefined) => (x === undefined ? '—' : x.toFixed(0).padStart(7));
  const rows: [string, number | undefined, number | undefined][] = [
    ['first diagnostics (ms)', ours.firstDiagnosticsMs, v1?.firstDiagnosticsMs],
    ['completion right after an edit (median ms)', median(ours.completionAfterEditMs), v1 && median(v1.completionAfterEditMs)],
    ['hover right after an edit (median ms)', median(ours.hoverAfterEditMs), v1 && median(v1.hoverAfterEditMs)],
    ['edit → diagnostics (median ms)', median(ours.editToDiagnosticsMs), v1 && median(v1.editToDiagnosticsMs)],
    ['peak RSS (MB)', ours.peakRssMb, v1?.peakRssMb],
  ];
  process.stdout.write(`language server, ${lines.toLocaleString('en')}-line file (${(Buffer.byteLength(text) / 1e6).toFixed(2)} MB), load ${(await import('node:os')).loadavg()[0].toFixed(1)}\n`);
  process.stdout.write(`${'figure'.padEnd(44)}   ours   turn v1  ratio\n`);
  for (const [name, a, b] of rows) process.stdout.write(`${name.padEnd(44)}${f(a)}  ${f(b)}  ${a !== undefined && b ? (a / b).toFixed(2) + '×' : ''}\n`);
}

if (require.main === module) {
  main().catch((e: unknown) => {
    process.stderr.write(String(e) + '\n');
    process.exitCode = 1;
  });
}
