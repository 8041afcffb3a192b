// Writes the README's command table from the command table (cli/commands.ts), the source `turn
// --help` prints from too: `node --import tsx scripts/readme-commands.ts`.
// test/cli/commands.test.ts fails when the README's table differs.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { withReadmeTable } from '../cli/commands.js';

const readme = path.join(__dirname, '..', 'README.md');
const updated = withReadmeTable(fs.readFileSync(readme, 'utf8'));
if (updated === undefined) {
  process.stderr.write('README.md has no command table markers (see README_BEGIN in cli/commands.ts)\n');
  process.exit(1);
}
fs.writeFileSync(readme, updated);
