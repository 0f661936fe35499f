import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../helpers.ts';
import {
  buildCacheKey,
  saveBuild,
  scriptedPackages,
  seedBuild,
  unbuiltPackages,
} from '../../../src/targets/native-builds.ts';

/** A prefix with a gyp package (nested under another), a script-only package and a plain one. */
function prefix(root: string, built: boolean): string {
  const pkg = (dir: string, manifest: Record<string, unknown>, gyp = false) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest));
    if (gyp) writeFileSync(join(dir, 'binding.gyp'), '{}');
  };
  const nm = join(root, 'node_modules');
  pkg(join(nm, 'plain'), { name: 'plain', version: '1.0.0' });
  pkg(join(nm, '@s', 'hook'), { name: '@s/hook', version: '2.0.0', scripts: { postinstall: 'node x.js' } });
  const gyp = join(nm, 'plain', 'node_modules', 'addon');
  pkg(gyp, { name: 'addon', version: '3.1.0' }, true);
  if (built) {
    mkdirSync(join(gyp, 'build', 'Release', 'obj.target'), { recursive: true });
    writeFileSync(join(gyp, 'build', 'Release', 'addon.node'), 'compiled');
  }
  return root;
}

test('scriptedPackages finds gyp and install-script packages, scoped and nested; unbuiltPackages the gyp ones with no .node', (t) => {
  const p = prefix(tempDir(t), false);
  const found = scriptedPackages(p).map((x) => `${x.name}@${x.version}${x.gyp ? ' gyp' : ''}`);
  assert.deepEqual(found.sort(), ['@s/hook@2.0.0', 'addon@3.1.0 gyp']);
  assert.deepEqual(
    unbuiltPackages(p, {}).map((x) => x.name),
    ['addon'],
  );
  assert.deepEqual(unbuiltPackages(p, { addon: 'cannot build offline' }), [], 'a declared skip is not unbuilt');
});

test('a build saved from one install seeds the same package version in another; keyed by version and Node ABI', (t) => {
  process.env.MEMEVAL_CACHE_DIR = tempDir(t);
  t.after(() => delete process.env.MEMEVAL_CACHE_DIR);
  const built = prefix(tempDir(t), true);
  const fresh = prefix(tempDir(t), false);
  const freshAddon = scriptedPackages(fresh).find((x) => x.gyp)!;
  assert.equal(seedBuild(freshAddon), false, 'nothing cached yet');
  saveBuild(scriptedPackages(built).find((x) => x.gyp)!);
  const key = buildCacheKey({ name: 'addon', version: '3.1.0' });
  assert.match(
    key,
    new RegExp(`^addon@3\\.1\\.0-node-abi${process.versions.modules}-${process.platform}-${process.arch}$`),
  );
  assert.deepEqual(
    existsSync(join(process.env.MEMEVAL_CACHE_DIR!, 'builds', key, 'obj.target')),
    false,
    'only the .node files are kept',
  );
  assert.equal(seedBuild(freshAddon), true);
  assert.equal(readFileSync(join(freshAddon.dir, 'build', 'Release', 'addon.node'), 'utf8'), 'compiled');
  assert.deepEqual(unbuiltPackages(fresh, {}), []);
  const other = { ...freshAddon, version: '3.2.0' };
  assert.equal(seedBuild(other), false, 'another version is not seeded from it');
});

test('a gyp package shipping its binary in prebuilds/, or one npm marked optional, is not unbuilt', (t) => {
  const root = tempDir(t);
  const nm = join(root, 'node_modules');
  for (const [name, extra] of [
    ['shipped', join('prebuilds', 'linux-x64', 'shipped.node')],
    ['maybe', undefined],
  ] as const) {
    mkdirSync(join(nm, name), { recursive: true });
    writeFileSync(join(nm, name, 'package.json'), JSON.stringify({ name, version: '1.0.0' }));
    writeFileSync(join(nm, name, 'binding.gyp'), '{}');
    if (extra) {
      mkdirSync(join(nm, name, extra, '..'), { recursive: true });
      writeFileSync(join(nm, name, extra), 'binary');
    }
  }
  assert.deepEqual(
    unbuiltPackages(root, {}).map((x) => x.name),
    ['maybe'],
  );
  writeFileSync(
    join(nm, '.package-lock.json'),
    JSON.stringify({ packages: { 'node_modules/maybe': { version: '1.0.0', optional: true } } }),
  );
  assert.deepEqual(unbuiltPackages(root, {}), []);
});
