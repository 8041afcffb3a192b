// The language server on a large file, side by side with Turn v1's (issue 45): both servers run as
// whole processes over stdio on the same generated program (bench/lsp.ts's generator), and the
// figures are those an editor sees:
//  - first diagnostics: from sending didOpen to the first publishDiagnostics for it;
//  - completion after an edit: a didChange in the middle of the file, then at once a completion
//    request; the time until its answer (the re-check of the edit may still be pending);
//  - hover after an edit: the same with a hover request;
//  - peak memory: the server process's VmHWM (Linux /proc) at the end.
// Turn v1 runs only when TURN_V1_BIN names its binary (`turn lsp`); without it its column is empty.
// The program is written in Turn v1's syntax (`generateV1Program`: structs, struct literals, closures
// applied through `call`, loops, branches, lists and maps), which ours reads too, so both servers
// parse and check the whole file; each side's first diagnostics are counted and printed, and a side
// that reports any is named (the comparison is then not like for like).
// Run: `node --import tsx bench/lsp-peer.ts [lines]` (default 45,000). TURN_LSP_PROFILE=DIR starts our
// server with --cpu-prof into DIR.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { quantity, row, summarize, type Row } from './harness.js';

const ROOT = path.join(__dirname, '..');
const BIN = path.join(ROOT, 'bin', 'turn.js');

interface Message {
  id?: number;
  method?: string;
  params?: { version?: number; uri?: string; diagnostics?: { message: string; range: { start: { line: number } } }[] };
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

/**
 * A program of `lines` lines in Turn v1's syntax, which both servers parse and check whole: per block
 * a struct, a closure with a loop returning a struct literal, the closure applied through `call`, field
 * reads, a branch, a list and a map, each with fresh names. Turn v1 runs one block as ours does.
 */
export function generateV1Program(lines: number): string {
  const out: string[] = ['// Generated in Turn v1 syntax for the language server peer benchmark.'];
  for (let i = 0; out.length < lines; i++) {
    out.push(
      `struct Item${i} {`,
      `    name: Str,`,
      `    weight: Num`,
      `};`,
      `let make${i} = turn(n: Num) -> Item${i} {`,
      `    let total = 0;`,
      `    while total < n {`,
      `        let total = total + 1;`,
      `    }`,
      `    return Item${i} { name: "item ${i}", weight: total };`,
      `};`,
      `let item${i} = call(make${i}, ${i % 10});`,
      `let w${i} = item${i}.weight * 2 + 1;`,
      `if w${i} > 10 {`,
      `    call("echo", item${i}.name + " " + w${i});`,
      `} else {`,
      `    call("echo", "light " + w${i});`,
      `}`,
      `let rec${i} = {"name": item${i}.name, "total": w${i}, "tags": ["a", "b"]};`,
      ``,
    );
  }
  return out.slice(0, lines).join('\n') + '\n';
}

/** Where the edits go: in `let itemN = call(makeN, K);` past the file's middle, before K; completion after `itemN.` on the next line. */
function editSite(lines: string[]): { target: number; column: number; memberLine: number; dot: number } {
  const target = lines.findIndex((l, i) => i > lines.length / 2 && /^let item\d+ = call\(make\d+, \d+\);$/.test(l));
  if (target < 0) throw new Error('no edit site in the generated program');
  return { target, column: lines[target].lastIndexOf(' ') + 1, memberLine: target + 1, dot: lines[target + 1].indexOf('.') + 1 };
}

export interface PeerFigures {
  /** How many diagnostics the first publication had, and the first few (a parse error means the server read part of the file). */
  firstDiagnostics: { count: number; first: string[] };
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
    const opened = (await published).params?.diagnostics ?? [];
    const firstDiagnosticsMs = ms(start);
    const firstDiagnostics = { count: opened.length, first: opened.slice(0, 3).map((d) => `${d.range.start.line + 1}: ${d.message}`) };

    const lines = text.split('\n');
    const { target, column, memberLine, dot } = editSite(lines);
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
    return { firstDiagnostics, firstDiagnosticsMs, completionAfterEditMs: completion, hoverAfterEditMs: hover, editToDiagnosticsMs: diagnostics, peakRssMb: peak };
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

/** The server of this checkout, as `turn lsp` runs it (needs dist/: npm run build). */
function oursCommand(profileDir?: string): [string, string[]] {
  return [process.execPath, [...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []), BIN, 'lsp', '--stdio']];
}

/** The bench's rows (bench/run.ts): ours and Turn v1's server on the same v1-syntax file, in the same run; none without TURN_V1_BIN. */
export async function lspPeerBenchmarks(lines = 45_000): Promise<Row[]> {
  const v1Bin = process.env.TURN_V1_BIN;
  if (!v1Bin || !fs.existsSync(v1Bin)) return [];
  const text = generateV1Program(lines);
  const ours = await measureServer(...oursCommand(), text);
  const v1 = await measureServer(v1Bin, ['lsp'], text);
  if (ours.firstDiagnostics.count > 0 || v1.firstDiagnostics.count > 0) {
    throw new Error(`the LSP peer file is not read whole by both servers: ours ${ours.firstDiagnostics.first.join(' | ')}; Turn v1 ${v1.firstDiagnostics.first.join(' | ')}`);
  }
  const size = `${lines.toLocaleString('en')}-line v1-syntax file`;
  const note = 'both servers over stdio on the same file, each with no diagnostics on it (read whole)';
  return [
    row(`LSP peer: first diagnostics, ${size} (ms)`, summarize([ours.firstDiagnosticsMs]), 'Turn v1 `turn lsp`, same file', summarize([v1.firstDiagnosticsMs]), note),
    row(`LSP peer: completion right after an edit, ${size} (ms)`, summarize(ours.completionAfterEditMs), 'Turn v1 `turn lsp`, same edits', summarize(v1.completionAfterEditMs), note),
    row(`LSP peer: edit → diagnostics, ${size} (ms)`, summarize(ours.editToDiagnosticsMs), 'Turn v1 `turn lsp`, same edits', summarize(v1.editToDiagnosticsMs), note),
    row(`LSP peer: peak RSS, ${size}`, quantity(ours.peakRssMb ?? NaN, 'MB'), 'Turn v1 `turn lsp`, same session', quantity(v1.peakRssMb ?? NaN, 'MB'), 'VmHWM of each server process at the end of the session'),
  ];
}

async function main(): Promise<void> {
  const lines = Number(process.argv[2] ?? 45_000);
  const text = generateV1Program(lines);
  const profile = process.env.TURN_LSP_PROFILE;
  const ours = await measureServer(...oursCommand(profile), text);
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
  for (const [side, fig] of [['ours', ours], ['turn v1', v1]] as const) {
    if (fig) process.stdout.write(`${side}: ${fig.firstDiagnostics.count} diagnostic(s) on open${fig.firstDiagnostics.count ? ' — NOT like for like: ' + fig.firstDiagnostics.first.join(' | ') : ' (read the whole file)'}\n`);
  }
}

if (require.main === module) {
  main().catch((e: unknown) => {
    process.stderr.write(String(e) + '\n');
    process.exitCode = 1;
  });
}
