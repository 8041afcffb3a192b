// std/media through a real run: a file read under --allow-read, a URL under --allow-net, base64
// data; the value shows as its label (never its bytes); each refusal is a located Turn error.
// The attacks: an oversized file, a file outside the read grant, a URL outside the net grant, a
// PNG claiming to be a PDF (by its name, by the mime option, by a server's content-type).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { startRun } from '../../runtime/index.js';
import { pdf, png } from './fixtures.js';

const RED = png(4, 3);
const RED_HASH = createHash('sha256').update(RED).digest('hex');

function workspace() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-media-'));
  const dir = path.join(root, 'granted');
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'red.png'), RED);
  fs.writeFileSync(path.join(dir, 'report.pdf'), pdf(2));
  fs.writeFileSync(path.join(dir, 'fake.pdf'), RED); // a PNG named as a PDF
  fs.writeFileSync(path.join(dir, 'big.png'), Buffer.concat([RED, Buffer.alloc(4096)]));
  fs.writeFileSync(path.join(root, 'secret.png'), RED); // outside the grant
  return { root, dir };
}

async function run(program: string, authority: { allowRead?: string[]; allowNet?: string[] }, cwd: string) {
  const file = path.join(cwd, 'main.tn');
  fs.writeFileSync(file, `let media = use "std/media";\n${program}`);
  const lines: string[] = [];
  const events: { kind: string; [k: string]: unknown }[] = [];
  const r = await startRun({ file, cwd, model: 'mock', fetchSchemas: false, env: { TURN_STORE_DIR: path.join(cwd, '.store') }, authority, onOutput: (l) => lines.push(l), onEvent: (e) => events.push(e as never) });
  return { result: await r.start(), lines, events };
}

function failedAt(result: Awaited<ReturnType<typeof run>>['result'], line: number, message: RegExp) {
  assert.equal(result.kind, 'failed', JSON.stringify(result).slice(0, 500));
  if (result.kind !== 'failed') return;
  assert.match(result.error.message, message);
  assert.equal(result.error.line, line, `located at the program's line: ${JSON.stringify(result.error)}`);
  assert.doesNotMatch(result.error.message, /\n\s+at .*\.(ts|js):\d+/, 'no JavaScript stack trace');
}

test('media.image reads a file under the read grant: shown as its label, never its bytes; in a prompt as its full-hash label', async () => {
  const { dir } = workspace();
  const { result, lines, events } = await run('let img = media.image("red.png");\ncall("echo", img);\ncall("echo", [img]);\nreturn infer Str { ["What colour is this?", img]; };', { allowRead: [dir] }, dir);
  assert.equal(result.kind, 'done', JSON.stringify(result).slice(0, 500));
  assert.equal(lines[0], `<image image/png ${RED.length} B sha256:${RED_HASH.slice(0, 12)}…>`);
  assert.equal(lines[1], `[<image image/png ${RED.length} B sha256:${RED_HASH.slice(0, 12)}…>]`);
  const request = events.find((e) => e.kind === 'infer.request')!;
  const task = (request.prompt as { task: string }).task;
  assert.ok(task.startsWith(`What colour is this?\n<image image/png ${RED.length} B sha256:${RED_HASH}>`), task);
  assert.deepEqual(request.media, [`<image image/png ${RED.length} B sha256:${RED_HASH.slice(0, 12)}…>`]);
  const all = JSON.stringify(events) + lines.join('\n');
  assert.ok(!all.includes(RED.toString('base64').slice(0, 24)), 'the bytes are nowhere in the output or the trace');
});

test('media.file takes a PDF; media.image refuses one (it is not an image)', async () => {
  const { dir } = workspace();
  const ok = await run('let d = media.file("report.pdf");\ncall("echo", d);\nreturn 1;', { allowRead: [dir] }, dir);
  assert.equal(ok.result.kind, 'done');
  assert.match(ok.lines[0], /^<document application\/pdf \d+ B sha256:[0-9a-f]{12}…>$/);
  const bad = await run('let d = media.image("report.pdf");\nreturn d;', { allowRead: [dir] }, dir);
  failedAt(bad.result, 2, /report\.pdf is application\/pdf, not an image: use media\.file/);
});

test('attack: a file outside the read grant is refused before it is read', async () => {
  const { root, dir } = workspace();
  const { result } = await run('let img = media.image("../secret.png");\nreturn img;', { allowRead: [dir] }, dir);
  failedAt(result, 2, /read access to .*secret\.png is not granted/);
  const none = await run('let img = media.image("red.png");\nreturn img;', {}, dir);
  failedAt(none.result, 2, /not granted/);
  assert.ok(fs.existsSync(path.join(root, 'secret.png')));
});

test('attack: a file over the byte limit is refused (max_bytes), and the limit itself is bounded', async () => {
  const { dir } = workspace();
  const { result } = await run('let img = media.image("big.png", {"max_bytes": 1024});\nreturn img;', { allowRead: [dir] }, dir);
  failedAt(result, 2, /big\.png is larger than 1024 bytes/);
  const huge = await run('let img = media.image("red.png", {"max_bytes": 1073741824});\nreturn img;', { allowRead: [dir] }, dir);
  failedAt(huge.result, 2, /max_bytes must be a whole number from 1 to 33554432/);
  const fits = await run('let img = media.image("big.png", {"max_bytes": 8192});\nreturn 1;', { allowRead: [dir] }, dir);
  assert.equal(fits.result.kind, 'done');
});

test('attack: a PNG claiming to be a PDF is refused — by its name, by the mime option, as base64 with a PDF type', async () => {
  const { dir } = workspace();
  const byName = await run('let d = media.file("fake.pdf");\nreturn d;', { allowRead: [dir] }, dir);
  failedAt(byName.result, 2, /fake\.pdf is declared application\/pdf \(by its name\) but its bytes are image\/png; refused/);
  const byOption = await run('let d = media.file("red.png", {"mime": "application/pdf"});\nreturn d;', { allowRead: [dir] }, dir);
  failedAt(byOption.result, 2, /declared application\/pdf \(by the mime option\) but its bytes are image\/png/);
  const b64 = await run(`let d = media.base64("${RED.toString('base64')}", "application/pdf");\nreturn d;`, {}, dir);
  failedAt(b64.result, 2, /declared application\/pdf \(by the mime argument\) but its bytes are image\/png/);
  const unknown = await run(`let d = media.base64("${Buffer.from('hello, not an image').toString('base64')}", "image/png");\nreturn d;`, {}, dir);
  failedAt(unknown.result, 2, /is not an image or document Turn can send/);
  const notBase64 = await run('let d = media.base64("<script>", "image/png");\nreturn d;', {}, dir);
  failedAt(notBase64.result, 2, /the data is not base64/);
});

test('media.url: under the net grant, bounded, typed by its bytes; outside the grant nothing is fetched', async () => {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    if (req.url === '/red.png') res.writeHead(200, { 'content-type': 'image/png' }).end(RED);
    else if (req.url === '/lying.pdf') res.writeHead(200, { 'content-type': 'application/pdf' }).end(RED);
    else if (req.url === '/octet') res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(RED);
    else res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.concat([RED, Buffer.alloc(64 * 1024)]));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const port = (server.address() as AddressInfo).port;
  const base = `http://127.0.0.1:${port}`;
  const { dir } = workspace();
  const ok = await run(`let img = media.url("${base}/red.png");\ncall("echo", img);\nlet o = media.url("${base}/octet");\nreturn 1;`, { allowNet: [`127.0.0.1:${port}`] }, dir);
  assert.equal(ok.result.kind, 'done', JSON.stringify(ok.result).slice(0, 400));
  assert.equal(ok.lines[0], `<image image/png ${RED.length} B sha256:${RED_HASH.slice(0, 12)}…>`);
  const lying = await run(`let d = media.url("${base}/lying.pdf");\nreturn d;`, { allowNet: [`127.0.0.1:${port}`] }, dir);
  failedAt(lying.result, 2, /declared application\/pdf \(by the server's content-type\) but its bytes are image\/png/);
  const big = await run(`let d = media.url("${base}/big", {"max_bytes": 4096});\nreturn d;`, { allowNet: [`127.0.0.1:${port}`] }, dir);
  failedAt(big.result, 2, /larger than 4096 bytes/);
  const before = hits.length;
  const outside = await run(`let d = media.url("${base}/red.png");\nreturn d;`, { allowNet: ['example.com'] }, dir);
  failedAt(outside.result, 2, /not granted|not allowed|network/);
  assert.equal(hits.length, before, 'nothing was fetched outside the grant');
});
