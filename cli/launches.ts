// `turn check`'s account of the stdio MCP servers a program may launch (docs/authority.md,
// *Launching programs*): each launch map written literally in the program, with the --allow-run
// grant that allows it; a warning where that grant leaves an interpreter's arguments free (it then
// grants everything); and a warning at each map that names a command but is built at run time
// (a run never launches it).
import { describeServer } from '../runtime/mcp/server.js';
import { launchMapsIn, launchNotes, type LaunchMapSite } from '../runtime/check/launch-maps.js';
import type { CompiledProgram } from '../runtime/run/index.js';
import { shownPath } from './report.js';
import { err } from './usage.js';

/** Prints the launch maps of a compiled program and their warnings (standard error, like diagnostics). */
export function reportLaunches(code: Pick<CompiledProgram, 'units'>, grants: readonly string[]): void {
  const sites: LaunchMapSite[] = [];
  const seen = new Set<string>();
  for (const unit of code.units) {
    const { literal, built } = launchMapsIn(unit.program, unit.file);
    // the same map in an absorbed module's generated source is the user's `use schema::mcp({...})`: shown once, where it is written
    for (const site of literal) {
      if (seen.has(site.key)) continue;
      seen.add(site.key);
      sites.push(site);
    }
    for (const b of built) {
      err(`${shownPath(b.file)}:${b.line}:${b.column}: warning: this launch map is built at run time, so a run never launches it: write its command, args, env, pass_env and cwd as literals`);
    }
  }
  for (const note of launchNotes(sites, grants)) {
    const { site } = note;
    const where = `${shownPath(site.file)}:${site.line}:${site.column}`;
    const granted = note.grant !== undefined ? `granted by --allow-run ${note.grant}` : 'not granted';
    err(`${where}: note: launches ${describeServer(site.spec)} (${granted})`);
    if (note.warning) err(`${where}: warning: ${note.warning}`);
  }
}
