// The files a command takes: FILE or folder arguments, a folder standing for the `.tn` files under
// it (sorted; `node_modules` and dot-folders skipped), as `turn test` takes folders.
import * as fs from 'node:fs';
import * as path from 'node:path';

/** `.tn` files under `paths`; a path that is a file is taken as it is. Throws for a missing path. */
export function turnFiles(paths: string[]): { files: string[]; missing: string[] } {
  const files: string[] = [];
  const missing: string[] = [];
  const visit = (p: string, explicit: boolean): void => {
    let st: fs.Stats;
    try {
      st = fs.statSync(p);
    } catch {
      if (explicit) missing.push(p);
      return;
    }
    if (st.isDirectory()) {
      const base = path.basename(p);
      if (!explicit && (base === 'node_modules' || base.startsWith('.'))) return;
      for (const name of fs.readdirSync(p).sort()) visit(path.join(p, name), false);
    } else if (explicit || p.endsWith('.tn')) {
      files.push(p);
    }
  };
  for (const p of paths) visit(p, true);
  return { files: [...new Set(files)], missing };
}
