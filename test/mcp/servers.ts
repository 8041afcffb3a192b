// The MCP project's reference servers, from npm (devDependencies), as the tests start them: over
// stdio by a Turn program's launch map, or over Streamable HTTP on 127.0.0.1 by the test.
import { spawn, type ChildProcess } from 'node:child_process';
import * as net from 'node:net';
import * as path from 'node:path';
import { ROOT } from '../cli/run-cli.js';

export const EVERYTHING = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
export const FILESYSTEM = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');
/** the node that runs the tests: the launch maps name it by its absolute path, and the grant does too */
export const NODE = process.execPath;

/** A Turn launch map literal. */
export function launchMap(args: string[]): string {
  return JSON.stringify({ command: NODE, args });
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export interface HttpServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** server-everything in Streamable HTTP mode on 127.0.0.1; resolves once it accepts connections. */
export async function everythingOverHttp(): Promise<HttpServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(NODE, [EVERYTHING, 'streamableHttp'], { env: { ...process.env, PORT: String(port), HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let said = '';
  child.stdout?.on('data', (c: Buffer) => (said += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (said += c.toString()));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server-everything exited: ${said}`);
    const up = await new Promise<boolean>((resolve) => {
      const sock = net.connect(port, '127.0.0.1', () => {
        sock.end();
        resolve(true);
      });
      sock.on('error', () => resolve(false));
    });
    if (up) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server-everything did not listen on ${port}: ${said}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5000).unref();
      }),
  };
}
