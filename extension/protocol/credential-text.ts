// A missing credential said in the editor's words (issue 44). Every door a credential is asked at —
// std/net, an absorbed OpenAPI or GraphQL client, an MCP server over HTTP — fails with the runtime's
// `the secret "NAME" for identity::... is not set (set TURN_SECRET_NAME or add it to the --secrets
// file)`, which the run panel finds with missingCredential. Raw, it reads as the CLI's advice inside
// an escaped error value; the panel shows this sentence instead, with its Add Credential button.
import { missingCredential } from './panel.js';

/** the longest part of the program's own error text kept (it names the function and module) */
const MAX_WHERE = 200;

/**
 * The error as one plain sentence when it is a missing credential, else null. `where` is the part of
 * the runtime's message that says in which function the call failed (`in \`get_quote\` of the API
 * absorbed at committee.tn:27`), kept when present; the link to the call's line is the error's site.
 */
export function credentialErrorText(message: string): string | null {
  const name = missingCredential(message);
  if (name === null) return null;
  const text = message.slice(0, 4096);
  // the trailing "(in ...)" the VM adds to an uncaught error raised inside a function
  const open = text.lastIndexOf(' (in ');
  const where = open >= 0 && text.endsWith(')') ? text.slice(open + 5, -1) : '';
  const env = `TURN_SECRET_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
  const at = where && where.length <= MAX_WHERE ? ` (${where})` : '';
  // a durable run waits where it was refused (runner.ts): it goes on with a resume, not a new run
  const then = text.includes('resume the run') ? 'then resume the run from the Runs view' : 'then run again';
  return `The run needs the credential "${name}", which is not in the Turn vault${at}. Add it with Add Credential…, or set ${env} in the environment the editor was started from, ${then}.`;
}
