// Document URIs to the paths the checker reports and resolves `use "..."` against.
import { fileURLToPath } from 'node:url';

/** A `file:` URI becomes a file system path; any other URI (untitled:, vscode-notebook-cell:, …) stays as it is. */
export function uriToPath(uri: string): string {
  if (uri.startsWith('file:')) {
    try {
      return fileURLToPath(uri);
    } catch {
      return uri;
    }
  }
  return uri;
}
