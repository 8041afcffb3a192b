// The MCP launch maps a program writes in its source (docs/authority.md, *Launching programs*).
// `--allow-run node` grants launching `node` with the arguments written literally in the program,
// so the run needs to know which launch maps those are: every map literal with a "command" key
// whose entries are all literals (strings, numbers, lists and maps of them), in any unit of the program
// (an absorbed MCP module's `client({...})` included). A map that names a command but holds
// anything computed is "built at run time": it is never launched, and `turn check` says where.
import type { Program, MapLit } from '../syntax/ast.js';
import type { SourceFile } from '../syntax/source.js';
import { walk } from '../syntax/walk.js';
import { LAUNCH_KEYS, McpError, launchKey, serverSpec, type McpServerSpec } from '../mcp/server.js';
import { literalValue } from './schemas.js';
import { check, parseRunGrant, runGrantFlag } from '../effects/capabilities.js';
import { CODE_FLAGS, commandName, isInterpreter } from '../mcp/interpreters.js';

/** A launch map as written in the source, and where. */
export interface LaunchMapSite {
  /** `launchKey` of the launch it describes: what a run compares a launch with */
  key: string;
  spec: Extract<McpServerSpec, { kind: 'stdio' }>;
  file: string;
  line: number;
  column: number;
}

/** A map that names a command but is computed in part: where it is. */
export interface BuiltLaunchSite {
  file: string;
  line: number;
  column: number;
}

function looksLikeLaunchMap(m: MapLit): boolean {
  return m.entries.some((e) => e.key === 'command') && m.entries.every((e) => LAUNCH_KEYS.has(e.key));
}

/** The launch maps written literally in `program`, and the maps that name a command but are built from other values. */
export function launchMapsIn(program: Program, file: SourceFile): { literal: LaunchMapSite[]; built: BuiltLaunchSite[] } {
  const literal: LaunchMapSite[] = [];
  const built: BuiltLaunchSite[] = [];
  walk(program, (n) => {
    if (n.kind !== 'Map' || !looksLikeLaunchMap(n)) return;
    const at = file.position(n.span.start);
    const where = { file: file.path, line: at.line, column: at.column };
    const value = literalValue(n);
    if (value === undefined) {
      built.push(where);
      return;
    }
    let spec: McpServerSpec;
    try {
      spec = serverSpec(value);
    } catch (e) {
      if (e instanceof McpError) return; // not a launch map the run would accept anyway: its use says why
      throw e;
    }
    if (spec.kind === 'stdio') literal.push({ key: launchKey(spec), spec, ...where });
  });
  return { literal, built };
}

export interface LaunchNote {
  site: LaunchMapSite;
  /** the grant that allows it (as given to --allow-run), if one does */
  grant?: string;
  /** set when the command is an interpreter and its grant leaves the arguments free (a bare command, or *) */
  warning?: string;
}

/**
 * What `turn check` says about each launch map written in the program: which of `grants` (as
 * `--allow-run` takes them) allows it, by the run's own check, and, for an interpreter whose grant
 * leaves its arguments free (a bare command, or *), a warning.
 */
export function launchNotes(sites: readonly LaunchMapSite[], grants: readonly string[]): LaunchNote[] {
  return sites.map((site) => {
    const { command, args } = site.spec;
    const grant = grants.find((g) => check({ run: { commands: [g] } }, { kind: 'run', command, args }).ok);
    if (grant === undefined) return { site };
    if (parseRunGrant(grant).args !== undefined || !isInterpreter(command)) return { site, grant };
    const name = commandName(command);
    const what = grant === '*' ? '--allow-run * grants every command with any arguments' : `--allow-run ${grant} grants ${name} with any arguments a launch map writes`;
    const code = args.find((a) => CODE_FLAGS.has(a));
    const why = code !== undefined ? ` (this one passes ${code}: code to run)` : '';
    return {
      site,
      grant,
      warning: `${what}, and ${name} runs whatever code they name${why}: granting an interpreter with free arguments grants everything; pin them: ${runGrantFlag(command, args)}`,
    };
  });
}
