// Every package `npm install -g` brings in (the run-time dependencies, transitively) declares that it
// runs on the oldest Node this project supports (package.json `engines.node`): no EBADENGINE warning
// at install, no dependency that silently needs a newer Node than the README promises.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as semver from 'semver';
import { ROOT } from './run-cli';

interface Manifest {
  name: string;
  version: string;
  engines?: { node?: string };
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

const readManifest = (file: string): Manifest => JSON.parse(fs.readFileSync(file, 'utf8')) as Manifest;

/** The package.json node's resolution finds for `name` required from `fromDir`. */
function locate(name: string, fromDir: string): string | undefined {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name, 'package.json');
    if (fs.existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}

function runtimeClosure(): Map<string, Manifest> {
  const project = readManifest(path.join(ROOT, 'package.json'));
  const found = new Map<string, Manifest>();
  const queue: [string, string][] = Object.keys(project.dependencies ?? {}).map((n) => [n, ROOT]);
  while (queue.length > 0) {
    const [name, from] = queue.shift()!;
    const file = locate(name, from);
    if (file === undefined || found.has(file)) continue; // an optional dependency for another platform
    const m = readManifest(file);
    found.set(file, m);
    for (const dep of Object.keys({ ...m.dependencies, ...m.optionalDependencies })) queue.push([dep, path.dirname(file)]);
  }
  return found;
}

test('every run-time dependency supports the oldest Node the project declares', () => {
  const project = readManifest(path.join(ROOT, 'package.json'));
  const floor = semver.minVersion(project.engines!.node!)!.version;
  const closure = runtimeClosure();
  assert.ok(closure.size > 20, `found only ${closure.size} packages: the walk is broken`);
  const refusing = [...closure.values()]
    .filter((m) => m.engines?.node !== undefined && !semver.satisfies(floor, m.engines.node))
    .map((m) => `${m.name}@${m.version} needs node ${m.engines!.node}`);
  assert.deepEqual(refusing, [], `these need a newer Node than ${floor}`);
});

test('no native module is a run-time dependency: installing the package compiles nothing', () => {
  const native = [...runtimeClosure().entries()]
    .filter(([file]) => fs.existsSync(path.join(path.dirname(file), 'binding.gyp')))
    .map(([, m]) => m.name);
  assert.deepEqual(native, []);
});
