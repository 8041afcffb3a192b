// The run the panel last showed, kept in a file of the extension's storage folder, so a window
// reload brings it back. The webview's own state (vscode.getState) is not enough: VS Code writes a
// webview's state with the workbench's saved state, every minute and at shutdown, and the save at a
// reload of a browser window (code-server) does not always land on a busy machine; the panel then
// came back with a run from a minute before. A file the extension host writes itself is on disk
// when the write returns. A run that has ended is written at once, whole; a running one at most once
// a second, and only its head (status, file, the last printed lines): its actors, model calls and
// timeline grow with the run (megabytes at 1,000 actors), and writing them each second held the
// extension host's thread while the editor waited on it (issue 44). A reload ends the run anyway
// (the extension host restarts), so what comes back of a running run is where it was.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isRunView, type RunView } from '../protocol/panel.js';
import { writeFileAtomic } from '../../runtime/index.js';

const FILE = 'run-panel-view.json';
const RUNNING_EVERY_MS = 1000;
/** the printed lines a running run's head keeps (its end writes them all) */
const RUNNING_OUTPUT_LINES = 200;

/** A running run's head: what it kept of the run, small whatever the run's size. */
export function runningHead(view: RunView): RunView {
  return { ...view, output: view.output.slice(-RUNNING_OUTPUT_LINES), actors: [], infers: [], timeline: [], messages: null };
}

export class KeptView {
  private pending: RunView | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly dir: string) {}

  /** The kept view, or undefined when there is none or it does not read back as a RunView. */
  load(): RunView | undefined {
    try {
      const v: unknown = JSON.parse(fs.readFileSync(path.join(this.dir, FILE), 'utf8'));
      return isRunView(v) ? v : undefined;
    } catch {
      return undefined;
    }
  }

  keep(view: RunView): void {
    this.pending = view;
    if (view.status !== 'running') this.flush();
    else this.timer ??= setTimeout(() => this.flush(), RUNNING_EVERY_MS);
  }

  /** Writes the latest view now (a temporary file renamed over the old one: never half a file). */
  flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const view = this.pending;
    this.pending = undefined;
    if (!view) return;
    try {
      fs.mkdirSync(this.dir, { recursive: true });
      writeFileAtomic(path.join(this.dir, FILE), JSON.stringify(view.status === 'running' ? runningHead(view) : view));
    } catch {
      // a read-only or full storage folder: a reload then shows what the webview's own state has
    }
  }
}
