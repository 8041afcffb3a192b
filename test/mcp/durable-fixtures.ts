// What the durable `turn mcp --store` tests share: the local service a served closure orders from
// (it counts POSTs, so a test sees an effect done once) and a child `turn mcp --port 0` with its
// URL and bearer token read from what it prints.
import { spawn, type ChildProcess } from 'node:child_process';
import * as http from 'node:http';
import { BIN } from '../cli/run-cli.js';

/** The local service a served closure calls: counts POSTs; holds GETs while `state.hold` is set. */
export function orderService() {
  const posts: string[] = [];
  let held: (() => void) | undefined;
  const state = { hold: true, held: new Promise<void>((resolve) => (held = resolve)) };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.method === 'POST') {
        posts.push(body);
        res.end(`order ${posts.length}`);
      } else if (state.hold) held!(); // never answered: turn mcp is killed meanwhile
      else res.end('confirmed');
    });
  });
  return { server, posts, state };
}

/** A child `turn mcp FILE --port 0 ARGS` in `cwd`, once it says where it listens. */
export async function startServedHttp(file: string, cwd: string, args: string[]): Promise<{ url: string; token: string; child: ChildProcess; exited: Promise<void> }> {
  const child = spawn(process.execPath, [BIN, 'mcp', file, '--port', '0', ...args], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const { url, token } = await new Promise<{ url: string; token: string }>((resolve, reject) => {
    let said = '';
    child.stderr.on('data', (c: Buffer) => {
      said += c.toString();
      const m = /over MCP \((http:\/\/127\.0\.0\.1:\d+\/mcp)\)/.exec(said);
      if (m) resolve({ url: m[1], token: /Authorization: Bearer (\S+)\n/.exec(said)?.[1] ?? '' });
    });
    child.on('exit', () => reject(new Error(`turn mcp exited: ${said}`)));
  });
  return { url, token, child, exited };
}
