// The walkthrough (package.json `contributes.walkthroughs`): every step's markdown exists and ships
// in the .vsix, every command a step links to is contributed, and the example it opens compiles and
// is the one its page shows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkSource } from '../../runtime/index.js';
import { EXAMPLE } from '../../extension/lm/walkthrough.js';

const root = path.join(__dirname, '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  contributes: { walkthroughs: { steps: { id: string; description: string; media: { markdown: string } }[] }[]; commands: { command: string }[] };
};
const shipped = fs.readFileSync(path.join(root, '.vscodeignore'), 'utf8').split('\n').filter((l) => l.startsWith('!')).map((l) => l.slice(1));
const ships = (rel: string) => shipped.some((g) => new RegExp('^' + g.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*') + '$').test(rel));

test('the walkthrough goes install → example → model → run → panel, each step a page that ships and commands that exist', () => {
  const [w] = pkg.contributes.walkthroughs;
  assert.deepEqual(w.steps.map((s) => s.id), ['install', 'openExample', 'pickModel', 'run', 'panel']);
  const commands = new Set(pkg.contributes.commands.map((c) => c.command));
  for (const step of w.steps) {
    assert.ok(fs.existsSync(path.join(root, step.media.markdown)), step.media.markdown);
    assert.ok(ships(step.media.markdown), `.vscodeignore ships ${step.media.markdown}`);
    for (const m of step.description.matchAll(/\(command:([\w.]+)\)/g)) assert.ok(commands.has(m[1]), `${step.id} links to ${m[1]}, which is not contributed`);
  }
});

test("the example the walkthrough opens compiles, and its page shows the same program", async () => {
  const checked = await checkSource('mood.tn', EXAMPLE, { fetch: false });
  assert.deepEqual(checked.diagnostics.filter((d) => d.severity === 'error'), []);
  const page = fs.readFileSync(path.join(root, 'docs/walkthrough/example.md'), 'utf8');
  const shown = /```turn\n([\s\S]*?)```/.exec(page)?.[1] ?? '';
  assert.ok(EXAMPLE.includes(shown.trim()), 'docs/walkthrough/example.md shows the program the command writes');
});
