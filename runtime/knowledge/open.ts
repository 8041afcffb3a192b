// Opening the knowledge store for a run, lazily: a run that never calls a kb tool never opens
// (or creates) the file. The folder is the run store's: `.turn/` in the working directory, or
// $TURN_STORE_DIR; the file is `knowledge.db` beside `store.db`. The opener carries the folder
// (`session.dir`) so that the kb tools can check, before anything is created, that the run's
// capabilities let it write there (runtime/effects/tools.ts, docs/authority.md).
import * as path from 'node:path';
import { defaultStoreDir } from '../store/open.js';
import { newRunId } from '../store/sqlite-schema.js';
import { KnowledgeStore, type KnowledgeSession } from './store.js';

/** Opens the run's session on the first call; `dir` is the folder the store is (or will be) in. */
export interface KnowledgeOpener {
  (): KnowledgeSession;
  readonly dir: string;
}

export interface LazyKnowledge {
  /** The run's session; opens the store on the first call. */
  session: KnowledgeOpener;
  /** Whether the store has been opened. */
  opened: () => boolean;
  close: () => void;
}

export interface KnowledgeOptions {
  /** the store folder (default: $TURN_STORE_DIR, else .turn in cwd) */
  dir?: string;
  /** the run the session writes as; default: a fresh id (a durable run passes its own, so a resumed run sees its drafts) */
  runId?: string | (() => string);
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  now?: () => number;
}

export function lazyKnowledge(options: KnowledgeOptions = {}): LazyKnowledge {
  let store: KnowledgeStore | undefined;
  let session: KnowledgeSession | undefined;
  const close = () => {
    store?.close();
    store = undefined;
    session = undefined;
  };
  const cwd = options.cwd ?? process.cwd();
  const dir = path.resolve(cwd, options.dir ?? defaultStoreDir(options.env ?? process.env, cwd));
  const open = () => {
    if (!session) {
      store = KnowledgeStore.open(dir, { now: options.now });
      const id = typeof options.runId === 'function' ? options.runId() : options.runId ?? newRunId();
      session = store.session(id);
      process.once('exit', close);
    }
    return session;
  };
  return {
    session: Object.assign(open, { dir }),
    opened: () => store !== undefined,
    close,
  };
}
