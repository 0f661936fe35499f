import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { memevalCommandFor } from '../../../src/app/init.js';
import { shellWord } from '../../../src/util/text.js';
import { tempDir } from '../../helpers.js';

function fakeMemeval(dir: string): string {
  const root = join(dir, 'memeval-clone');
  mkdirSync(join(root, 'bin'), { recursive: true });
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'memeval' }));
  return root;
}

test('init: a project that has memeval as a dependency (here or in a folder above) is told `npx memeval`', (t) => {
  const dir = tempDir(t);
  const root = fakeMemeval(dir);
  const project = join(dir, 'app');
  mkdirSync(join(project, 'node_modules'), { recursive: true });
  symlinkSync(root, join(project, 'node_modules', 'memeval'));
  assert.equal(memevalCommandFor(project, root), 'npx memeval');
  mkdirSync(join(project, 'packages', 'web'), { recursive: true });
  assert.equal(memevalCommandFor(join(project, 'packages', 'web'), root), 'npx memeval');
  // the clone itself: npx runs the package's own bin
  assert.equal(memevalCommandFor(root, root), 'npx memeval');
});

test('init: a project without memeval installed is told the launcher of the memeval that ran, not `npx memeval`', (t) => {
  const dir = tempDir(t);
  const root = fakeMemeval(dir);
  const project = join(dir, 'elsewhere');
  mkdirSync(project);
  assert.equal(memevalCommandFor(project, root), join(root, 'bin', 'memeval'));
  // another memeval installed in the project is not the one that ran
  const other = fakeMemeval(join(dir, 'x'));
  mkdirSync(join(project, 'node_modules'));
  symlinkSync(other, join(project, 'node_modules', 'memeval'));
  assert.equal(memevalCommandFor(project, root), join(root, 'bin', 'memeval'));
});

test('shellWord quotes only what the shell would split or expand', () => {
  assert.equal(shellWord('/opt/memeval/bin/memeval'), '/opt/memeval/bin/memeval');
  assert.equal(shellWord('my project'), "'my project'");
  assert.equal(shellWord("it's"), `'it'\\''s'`);
  assert.equal(shellWord('$HOME'), "'$HOME'");
});
