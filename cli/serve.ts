// `turn serve --restate-admin ADMIN_URL [--port N] [--host H] [--advertise URL] [--ingress URL]`: a worker hosting
// Turn runs as Restate handlers (docs/scale-out.md). It registers itself (or the balancer named by
// --advertise) with the admin API and serves until SIGTERM or SIGINT. --ingress is where a run
// submitted with --spread starts its placed children (default $TURN_RESTATE_INGRESS, else the
// admin host on port 8080).
import { RestateError, startRestateWorker } from '../runtime/index.js';
import { COMMANDS } from './commands.js';
import { EXIT, UsageError, err, numberOption, parse } from './usage.js';

export async function serveCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, COMMANDS.serve.options, 'serve');
  if (positionals.length > 0) throw new UsageError('`turn serve` takes no arguments');
  const admin = values['restate-admin'];
  if (admin === undefined) throw new UsageError('`turn serve` needs --restate-admin ADMIN_URL (the Restate admin API, e.g. http://127.0.0.1:9070)');
  const port = numberOption(values.port, 'port');
  if (port !== undefined && port > 65535) throw new UsageError(`--port needs a port number (0-65535), got \`${values.port}\``);
  let worker;
  try {
    // said as soon as it listens: whoever balances over workers (--advertise) adds it then, before
    // Restate's discovery of the advertised URL, so a worker started with --port 0 can be balanced
    const onListening = (url: string) => err(`turn serve: serving on ${url}`);
    worker = await startRestateWorker({ admin, port, onListening, ...(values.host ? { host: values.host } : {}), ...(values.advertise ? { advertise: values.advertise } : {}), ...(values.ingress ? { ingress: values.ingress } : {}) });
  } catch (e) {
    if (e instanceof RestateError) {
      err(`turn: ${e.message}`);
      return EXIT.runtimeError;
    }
    const code = (e as { code?: string }).code;
    if (code === 'EADDRINUSE' || code === 'EACCES') {
      err(`turn: cannot listen on port ${port ?? 0}: ${(e as Error).message}`);
      return EXIT.runtimeError;
    }
    throw e;
  }
  // the handlers are in place before the line that says the worker is registered (up)
  const stopped = new Promise<number>((resolve) => {
    const stop = (signal: string) => {
      err(`turn serve: ${signal}: stopping (runs in flight continue on another worker)`);
      void worker.close().then(() => resolve(EXIT.ok));
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  err(`turn serve: registered ${worker.registered} with the Restate admin API at ${admin}`);
  return stopped;
}
