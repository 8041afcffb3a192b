// No backtracking regular expression runs on outside data (runtime/linear-regex.ts). JavaScript's
// RegExp takes exponential time on `^(a+)+$` against "aaaa…!", in one synchronous call nothing can
// interrupt; schema patterns (an infer type's `@pattern`, an absorbed spec's, an MCP server's
// output schema) therefore run on RE2. Two guards: the source scan below (every RegExp built from
// a non-literal in runtime/ is in a reviewed allow-list, and every Ajv instance takes the RE2
// engine), and the attack itself through each way a pattern comes in, each answered in well under
// a second (the old code spent tens of seconds of CPU on each).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { runWith, script, failure, okJson } from '../infer/helpers.js';
import { checkSource, formatDiagnostic, startRun } from '../../runtime/index.js';
import { toolReply } from '../../runtime/mcp/reply.js';
import { McpError } from '../../runtime/mcp/server.js';

const ROOT = path.join(__dirname, '..', '..');

// ---- the source scan

/**
 * The RegExps runtime/ builds from something other than a literal, each reviewed: its pattern is
 * constant or escaped, and what it runs on is bounded or the user's own. Keyed by file and a piece
 * of the line (line numbers move with every edit; the failure names file:line).
 */
const REVIEWED: { file: string; code: string; why: string }[] = [
  { file: 'runtime/effects/vault.ts', code: 'new RegExp(alternatives.map(', why: 'the Redactor: alternatives of escaped secret forms (fixed fragments, no nested quantifier)' },
  { file: 'runtime/effects/vault.ts', code: 'new RegExp(this.pieces.flatMap(', why: 'the Redactor: alternatives of escapeRegExp-ed pieces of secrets (literals only)' },
  { file: 'runtime/providers/wasm.ts', code: 'new RegExp(WHOLE_TEMPLATE.source', why: 'a constant pattern (WHOLE_TEMPLATE), only made global' },
  { file: 'runtime/locate.ts', code: 'new RegExp(`use\\\\s+schema::', why: 'an escaped protocol name, run on the user\'s own source file' },
];

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...sourceFiles(p));
    else if (e.name.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** `RegExp(` or `new RegExp(` as a call (not `escapeRegExp(`, `translateRegExp(`). */
const REGEXP_CALL = /(?<![\w$.])(?:new\s+)?RegExp\s*\(\s*(.?)/g;

test('every RegExp runtime/ builds from a non-literal is in the reviewed allow-list', () => {
  const unreviewed: string[] = [];
  const used = new Set<number>();
  for (const file of sourceFiles(path.join(ROOT, 'runtime'))) {
    const rel = path.relative(ROOT, file).split(path.sep).join('/');
    fs.readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        const t = line.trim();
        if (t.startsWith('//') || t.startsWith('*') || t.startsWith('/*')) return;
        for (const m of line.matchAll(REGEXP_CALL)) {
          const rest = line.slice(m.index + m[0].length - 1);
          // a quoted literal without interpolation, or a regex literal, is constant
          if (/^'[^']*'|^"[^"]*"|^`[^`$]*`|^\//.test(rest)) continue;
          const k = REVIEWED.findIndex((r) => r.file === rel && line.includes(r.code));
          if (k >= 0) used.add(k);
          else unreviewed.push(`${rel}:${i + 1}: ${t}`);
        }
      });
  }
  assert.deepEqual(unreviewed, [], 'a RegExp built from data: use runtime/linear-regex.ts (RE2), or review it and add it to REVIEWED with why its input is constant or trusted');
  const stale = REVIEWED.filter((_, k) => !used.has(k)).map((r) => `${r.file}: ${r.code}`);
  assert.deepEqual(stale, [], 'an allow-list entry that no longer matches a line: remove it');
});

test('every Ajv instance in runtime/ runs patterns on RE2 (LINEAR_AJV_OPTIONS)', () => {
  const missing: string[] = [];
  let instances = 0;
  for (const file of sourceFiles(path.join(ROOT, 'runtime'))) {
    const text = fs.readFileSync(file, 'utf8');
    text.split('\n').forEach((line, i) => {
      // `new Ajv2020(`, `new (ctor(AjvModule))(`: a constructor call of Ajv, with its options on the line
      for (const m of line.matchAll(/new \(?\s*(?:ctor\()?Ajv\w*\)?\)?\(([^)]*)\)/g)) {
        instances++;
        if (!m[1].includes('LINEAR_AJV_OPTIONS')) missing.push(`${path.relative(ROOT, file)}:${i + 1}: ${m[0]}`);
      }
    });
  }
  assert.ok(instances >= 4, `found ${instances} Ajv constructions; the scan no longer sees them`);
  assert.deepEqual(missing, []);
});

// ---- the attack: `^(a+)+$` against 30 `a`s and a `!` (the old code: 2^30 backtracking steps per
// test, 9 to 12 s each on the development machine). A run that compiles a program and answers an
// infer is given 2 s (it takes well under one), a bare validation 1 s (it takes milliseconds).

const EVIL = '^(a+)+$';
const VICTIM = 'a'.repeat(30) + '!';

/** Milliseconds `f` takes. */
async function timed<T>(f: () => Promise<T> | T): Promise<[T, number]> {
  const t0 = performance.now();
  const out = await f();
  return [out, performance.now() - t0];
}

test('infer: an @pattern that backtracks is matched in linear time; the reply is refused at once', async () => {
  const program = `struct Name { name: Str @pattern("${EVIL.replace(/\\/g, '\\\\')}") }\nreturn infer Name with { retries: 0 } { "a name"; };`;
  // warm: compile and the first RE2 use are not what is measured
  assert.deepEqual(okJson(await runWith(program, script([{ value: { name: 'aaaa' } }]))), { name: 'aaaa' });
  const [r, ms] = await timed(() => runWith(program, script([{ value: { name: VICTIM } }])));
  assert.match(failure(r).message, /must match the pattern "\^\(a\+\)\+\$"/);
  assert.ok(ms < 2000, `the refusal took ${Math.round(ms)} ms`);
});

test('infer: a pattern RE2 cannot run (a lookahead, a backreference) is a compile-time error at the field, naming it', async () => {
  for (const [pattern, what] of [
    ['^(?=a)a$', /lookahead/],
    ['^(a)\\\\1$', /backreference/],
  ] as const) {
    const r = await checkSource('a.tn', `struct Name {\n  name: Str @pattern("${pattern}"),\n}\nreturn infer Name { "a name"; };\n`);
    const errors = r.diagnostics.filter((d) => d.severity === 'error').map((d) => formatDiagnostic(r.file, d));
    assert.equal(errors.length, 1, errors.join('\n'));
    assert.match(errors[0], /^a\.tn:2:\d+: .*@pattern.*linear/);
    assert.match(errors[0], what);
  }
});

test('MCP: a server whose outputSchema pattern backtracks, with structuredContent to match, is answered at once', async () => {
  const schema = { type: 'object', properties: { id: { type: 'string', pattern: EVIL } }, required: ['id'] };
  const ok = toolReply('t', { content: [], structuredContent: { id: 'aaa' } }, schema);
  assert.deepEqual(ok, { id: 'aaa' });
  const [thrown, ms] = await timed(() => {
    try {
      toolReply('t', { content: [], structuredContent: { id: VICTIM } }, schema);
      return undefined;
    } catch (e) {
      return e;
    }
  });
  assert.ok(thrown instanceof McpError, String(thrown));
  assert.match((thrown).message, /does not match its output schema/);
  assert.ok(ms < 1000, `the refusal took ${Math.round(ms)} ms`);
  // a megabyte pattern is refused before it is compiled (compiling and matching cost its size)
  assert.throws(() => toolReply('t', { content: [], structuredContent: { id: 'a' } }, { type: 'object', properties: { id: { type: 'string', pattern: 'a'.repeat(1_000_000) } } }), /output schema cannot be used: .*longer than 4096 characters/);
  // a lookahead in a server's schema is refused by name, not run
  assert.throws(() => toolReply('t', { content: [], structuredContent: { id: 'a' } }, { type: 'object', properties: { id: { type: 'string', pattern: '(?!x)' } } }), /output schema cannot be used: .*lookahead/);
});

// An absorbed OpenAPI spec whose schema carries the pattern, and an API that answers with the victim.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-regex-'));
let server: http.Server;
let base = '';
before(async () => {
  server = http.createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ id: req.url?.endsWith('/good') ? 'aaa' : VICTIM }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fs.writeFileSync(
    path.join(dir, 'api.json'),
    JSON.stringify({
      openapi: '3.0.3',
      info: { title: 'evil', version: '1' },
      paths: {
        '/things/{which}': {
          get: {
            operationId: 'getThing',
            parameters: [{ name: 'which', in: 'path', required: true, schema: { type: 'string' } }],
            responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } } },
          },
        },
      },
      components: { schemas: { Thing: { type: 'object', required: ['id'], properties: { id: { type: 'string', pattern: EVIL } } } } },
    }),
  );
});
after(() => {
  server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function runApi(name: string, which: string) {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `let api = use schema::openapi("api.json");\nlet c = api.client("${base}");\nreturn c.getThing(null, "${which}").id;\n`);
  const saved = process.env.TURN_SCHEMA_DIR;
  process.env.TURN_SCHEMA_DIR = path.join(dir, '.schemas');
  try {
    const r = await startRun({ file, cwd: dir, model: 'mock', authority: { allowNet: ['127.0.0.1:*'] }, fetchSchemas: false });
    return await r.start();
  } finally {
    if (saved === undefined) delete process.env.TURN_SCHEMA_DIR;
    else process.env.TURN_SCHEMA_DIR = saved;
  }
}

test('absorbed spec: a reply checked against the spec\'s backtracking pattern is refused at once', { timeout: 60_000 }, async () => {
  const good = await runApi('good.tn', 'good');
  assert.equal(good.kind, 'done', JSON.stringify(good));
  const [bad, ms] = await timed(() => runApi('bad.tn', 'bad'));
  assert.equal(bad.kind, 'failed', JSON.stringify(bad));
  if (bad.kind === 'failed') assert.match(bad.error.message, /ReplyError.*getThing/);
  assert.ok(ms < 2000, `the refusal took ${Math.round(ms)} ms`);
});
