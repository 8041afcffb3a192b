// The language server on a generated 5,000-line Turn file: time from an edit notification
// (textDocument/didChange) to the diagnostics it publishes, and of completion requests, measured
// over the real protocol (in-memory streams) with the debounce set to 0 so the figure is the server's
// own work (the editor adds CHECK_DEBOUNCE_MS, 150 ms, after the last keystroke of a burst).
// Prints median and 95th percentile; the table row compares the median edit→diagnostics time with a
// from-scratch `checkSource` of the same text (what `turn check` does).
import { PassThrough } from 'node:stream';
import {
  createConnection,
  createProtocolConnection,
  ProposedFeatures,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-languageserver/node';
import type { PublishDiagnosticsParams } from 'vscode-languageserver/node';
import { startServer } from '../language-server/server.js';
import { checkSource } from '../runtime/check/index.js';
import { measure, row, type Row } from './harness.js';

export const LSP_LINES = 5000;

/** A program of `lines` lines: structs, closures, loops, method calls and struct literals, repeated with fresh names. */
export function generateProgram(lines: number): string {
  const out: string[] = ['// Generated for the language server benchmark.'];
  for (let i = 0; out.length < lines; i++) {
    out.push(
      `struct Item${i} {`,
      `    name: Str,`,
      `    weight: Num`,
      `};`,
      `impl Item${i} {`,
      `    let heavier = turn(k: Num) -> Num {`,
      `        return weight * k;`,
      `    };`,
      `}`,
      `let make${i} = turn(n: Num) -> Item${i} {`,
      `    let total = 0;`,
      `    while total < n {`,
      `        let total = total + 1;`,
      `    }`,
      `    return Item${i} { name: "item ${i}", weight: total };`,
      `};`,
      `let item${i} = make${i}(${i});`,
      `let w${i} = item${i}.heavier(2) + item${i}.weight;`,
      `call("echo", item${i}.name + " " + w${i});`,
      ``,
    );
  }
  return out.slice(0, lines).join('\n') + '\n';
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export interface LspFigures {
  diagnostics: { medianMs: number; p95Ms: number; samples: number };
  completion: { medianMs: number; p95Ms: number; samples: number };
  /** didChange then completion at once: includes the re-parse and rebuilding the symbol index. */
  completionAfterEdit: { medianMs: number; p95Ms: number; samples: number };
}

export async function measureLsp(samples = 60): Promise<LspFigures> {
  const text = generateProgram(LSP_LINES);
  const lines = text.split('\n');
  const c2s = new PassThrough();
  const s2c = new PassThrough();
  const serverConnection = createConnection(ProposedFeatures.all, new StreamMessageReader(c2s), new StreamMessageWriter(s2c));
  startServer(serverConnection, { debounceMs: 0 });
  const client = createProtocolConnection(new StreamMessageReader(s2c), new StreamMessageWriter(c2s));
  const waiting = new Map<number, () => void>();
  client.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => {
    if (p.version !== undefined) waiting.get(p.version)?.();
  });
  client.listen();
  const published = (version: number) => new Promise<void>((resolve) => waiting.set(version, resolve));
  try {
    await client.sendRequest('initialize', { processId: null, rootUri: null, capabilities: {} });
    await client.sendNotification('initialized', {});
    const uri = 'file:///bench/generated.tn';
    let done = published(1);
    await client.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'turn', version: 1, text } });
    await done;

    // Edits in the middle of the file: type a digit into a number literal, then delete it again.
    const target = lines.findIndex((l, i) => i > lines.length / 2 && /^let item\d+ = make\d+\(\d+\);$/.test(l));
    const column = lines[target].indexOf('(') + 1;
    // Even steps type a digit into a number literal, odd steps delete it again.
    const toggleDigit = (i: number) =>
      i % 2 === 0
        ? { range: { start: { line: target, character: column }, end: { line: target, character: column } }, text: '7' }
        : { range: { start: { line: target, character: column }, end: { line: target, character: column + 1 } }, text: '' };
    const diagnosticsTimes: number[] = [];
    let version = 1;
    for (let i = 0; i < samples + 5; i++) {
      const change = toggleDigit(i);
      version++;
      done = published(version);
      const start = process.hrtime.bigint();
      await client.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [change] });
      await done;
      if (i >= 5) diagnosticsTimes.push(Number(process.hrtime.bigint() - start) / 1e6); // 5 warm-up edits
    }

    // Completion after `item<N>.` and at the start of a statement.
    const memberLine = lines.findIndex((l, i) => i > lines.length / 2 && l.startsWith('let w'));
    const positions = [
      { line: memberLine, character: lines[memberLine].indexOf('.') + 1 },
      { line: memberLine + 1, character: 0 },
    ];
    const completionTimes: number[] = [];
    for (let i = 0; i < samples + 5; i++) {
      const start = process.hrtime.bigint();
      await client.sendRequest('textDocument/completion', { textDocument: { uri }, position: positions[i % 2] });
      if (i >= 5) completionTimes.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    // Completion right after an edit: the document is re-parsed and its symbol index rebuilt first.
    const afterEditTimes: number[] = [];
    for (let i = 0; i < samples + 5; i++) {
      const change = toggleDigit(i);
      version++;
      done = published(version);
      const start = process.hrtime.bigint();
      await client.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [change] });
      await client.sendRequest('textDocument/completion', { textDocument: { uri }, position: positions[0] });
      if (i >= 5) afterEditTimes.push(Number(process.hrtime.bigint() - start) / 1e6);
      await done;
    }
    const stats = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      return { medianMs: percentile(s, 50), p95Ms: percentile(s, 95), samples: s.length };
    };
    return { diagnostics: stats(diagnosticsTimes), completion: stats(completionTimes), completionAfterEdit: stats(afterEditTimes) };
  } finally {
    client.dispose();
    serverConnection.dispose();
  }
}

/** Runs the benchmark, prints its figures, and returns a row for bench/run.ts's table. */
export async function lspBenchmark(): Promise<Row> {
  const figures = await measureLsp();
  const f = (x: { medianMs: number; p95Ms: number; samples: number }) => `median ${x.medianMs.toFixed(1)} ms, p95 ${x.p95Ms.toFixed(1)} ms (${x.samples} samples)`;
  process.stdout.write(
    `language server, ${LSP_LINES}-line file:\n` +
      `  edit → published diagnostics: ${f(figures.diagnostics)}\n` +
      `  completion request:           ${f(figures.completion)}\n` +
      `  edit + completion at once:    ${f(figures.completionAfterEdit)}\n\n`,
  );
  const text = generateProgram(LSP_LINES);
  const anchor = await measure(() => checkSource('/bench/generated.tn', text), { warmup: 2, samples: 9 });
  const ours = { medianMs: figures.diagnostics.medianMs, minMs: figures.diagnostics.medianMs, maxMs: figures.diagnostics.p95Ms, samples: figures.diagnostics.samples };
  return row(`LSP edit → diagnostics, ${LSP_LINES} lines (median; max shown = p95)`, ours, 'checkSource from scratch, same file', anchor);
}

if (require.main === module) {
  lspBenchmark().then(
    (r) => process.stdout.write(`anchor (checkSource from scratch): median ${r.anchor.medianMs.toFixed(1)} ms\n`),
    (e) => {
      process.stderr.write(String(e) + '\n');
      process.exitCode = 1;
    },
  );
}
