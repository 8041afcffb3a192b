// dist/debug-adapter.js: the Turn debug adapter over stdin/stdout (the DAP test client, other
// editors). Secrets come from TURN_SECRET_<NAME> here; inside VS Code the adapter runs inline
// with the SecretStorage vault (extension/debug/register.ts).
import { TurnDebugSession } from './adapter.js';

const session = new TurnDebugSession();
process.on('SIGTERM', () => session.shutdown());
session.start(process.stdin, process.stdout);
