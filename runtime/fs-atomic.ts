// Writing a file so that a reader never sees half of it: the bytes go to a temporary file beside it
// (named by this process's pid, so two writers never share one), which is then renamed over it.
import * as fs from 'node:fs';

export function writeFileAtomic(file: string, data: string | Uint8Array): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, data);
  fs.renameSync(tmp, file);
}
