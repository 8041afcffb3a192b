// What the Marketplace needs of the extension, checked without packaging it (test/e2e/vsix.e2e.ts
// checks a packaged .vsix): the license, the icon, the repository, the changelog, the Marketplace
// page (docs/marketplace.md) with its links and images, and a .vscodeignore that ships them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.join(__dirname, '..', '..');
const read = (rel: string) => fs.readFileSync(path.join(root, rel), 'utf8');
const pkg = JSON.parse(read('package.json'));
const PAGE = 'docs/marketplace.md';

/** The `!pattern` lines of .vscodeignore, as regular expressions over paths relative to the root. */
function whitelist(): RegExp[] {
  return read('.vscodeignore')
    .split('\n')
    .filter((l) => l.startsWith('!'))
    .map((glob) => glob.slice(1).replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*\*/g, '\0').replace(/\*/g, '[^/]*').replace(/\0/g, '.*'))
    .map((re) => new RegExp(`^${re}$`));
}
const shipped = (rel: string) => whitelist().some((p) => p.test(rel));

/** Width and height of a PNG, from its IHDR chunk. */
function pngSize(file: string): { width: number; height: number } {
  const buf = fs.readFileSync(file);
  assert.deepEqual([...buf.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], `${file} is not a PNG`);
  assert.equal(buf.toString('latin1', 12, 16), 'IHDR');
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

test('LICENSE is the MIT license package.json names', () => {
  assert.equal(pkg.license, 'MIT');
  const license = read('LICENSE');
  assert.match(license, /^MIT License\n\nCopyright \(c\) \d{4} the Turn for VS Code authors\n/);
  assert.match(license, /THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND/);
  assert.ok(shipped('LICENSE'), '.vscodeignore ships LICENSE');
});

test('the icon is a 128x128 PNG that ships', () => {
  assert.equal(typeof pkg.icon, 'string');
  assert.deepEqual(pngSize(path.join(root, pkg.icon)), { width: 128, height: 128 });
  assert.ok(shipped(pkg.icon), `.vscodeignore ships ${pkg.icon}`);
});

test('package.json names the repository, homepage and issue tracker', () => {
  assert.equal(pkg.repository?.type, 'git');
  assert.match(pkg.repository?.url ?? '', /^https:\/\/github\.com\/[\w.-]+\/[\w.-]+$/);
  assert.ok(pkg.homepage?.startsWith(pkg.repository.url));
  assert.equal(pkg.bugs?.url, `${pkg.repository.url}/issues`);
  assert.match(pkg.galleryBanner?.color ?? '', /^#[0-9a-f]{6}$/i);
  assert.ok(['dark', 'light'].includes(pkg.galleryBanner?.theme));
});

test('CHANGELOG.md has a section for the current version and ships', () => {
  const changelog = read('CHANGELOG.md');
  assert.ok(changelog.includes(`## [${pkg.version}]`), `a "## [${pkg.version}]" section`);
  assert.ok(shipped('CHANGELOG.md'), '.vscodeignore ships CHANGELOG.md');
});

test('packaging uses the Marketplace page and skips no check', () => {
  const script = read('scripts/package.mjs');
  assert.ok(script.includes(`const README = '${PAGE}'`) && script.includes("'--readme-path', README"), `vsce gets --readme-path ${PAGE}`);
  for (const flag of ['--skip-license', '--allow-missing-repository', '--baseContentUrl', '--baseImagesUrl', '--no-rewrite-relative-links']) {
    assert.ok(!script.includes(flag), `scripts/package.mjs passes ${flag}`);
  }
});

test('the Marketplace page links only to files that exist, and shows PNG images that ship', () => {
  const page = read(PAGE);
  const links = [...page.matchAll(/(!?)\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => ({ image: m[1] === '!', target: m[2] }));
  assert.ok(links.some((l) => l.image), 'the page shows images');
  for (const { image, target } of links) {
    if (/^https:\/\//.test(target) || target.startsWith('#')) continue;
    // vsce joins a relative link to the repository root, not to docs/: links start at the root.
    assert.ok(target.startsWith('/'), `${target}: write links from the repository root (/docs/...), as vsce resolves them`);
    const rel = target.slice(1).replace(/#.*$/, '');
    assert.ok(fs.existsSync(path.join(root, rel)), `${target} does not exist`);
    if (image) {
      assert.match(rel, /\.png$/, `${target}: the Marketplace takes no SVG; use PNG`);
      assert.ok(shipped(rel), `.vscodeignore ships ${rel}`);
    }
  }
});

test('the Marketplace page lists every command and setting the extension contributes', () => {
  const page = read(PAGE);
  for (const c of pkg.contributes.commands as { title: string; category?: string }[]) {
    const title = c.category ? `${c.category}: ${c.title}` : c.title;
    assert.ok(page.includes(`**${title}**`), `the page does not mention the command "${title}"`);
  }
  for (const key of Object.keys(pkg.contributes.configuration.properties)) {
    assert.ok(page.includes(`\`${key}\``), `the page does not document the setting ${key}`);
  }
});

test('.vscodeignore ships only files that exist or that the build makes', () => {
  for (const line of read('.vscodeignore').split('\n').filter((l) => l.startsWith('!'))) {
    const glob = line.slice(1);
    if (glob.startsWith('dist/')) continue; // built by `vscode:prepublish`
    const dir = path.dirname(glob);
    const re = new RegExp(`^${path.basename(glob).replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
    const found = fs.existsSync(path.join(root, dir)) && fs.readdirSync(path.join(root, dir)).some((f) => re.test(f));
    assert.ok(found, `${glob} in .vscodeignore matches no file`);
  }
});
