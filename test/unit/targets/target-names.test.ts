// `--target` with `all` beside other refs: every named target runs, each built-in once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { targetNames } from '../../../src/targets/install-many.js';
import { loadAllTargets, loadTarget } from '../../../src/targets/loader.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { ROOT, tempDir } from '../../helpers.ts';

const builtins = loadAllTargets().map((t) => t.decl.name);

test('targetNames: all beside a declaration file runs the built-in targets and the file', (t) => {
  const file = join(tempDir(t), 'libsql-copy.json5');
  writeFileSync(
    file,
    readFileSync(join(ROOT, 'eval', 'targets', 'mcp-memory-libsql.json5'), 'utf8').replace(
      'name: "mcp-memory-libsql"',
      'name: "libsql-copy"',
    ),
  );
  assert.deepEqual(targetNames(['all', file]), [...builtins, file]);
  assert.deepEqual(targetNames([file, 'all']), [file, ...builtins]);
});

test('targetNames: a built-in target named beside all runs once, where it was named', () => {
  assert.deepEqual(targetNames(['all', 'server-memory']), [
    ...builtins.filter((n) => n !== 'server-memory'),
    'server-memory',
  ]);
  assert.deepEqual(targetNames(['server-memory', 'all']), [
    'server-memory',
    ...builtins.filter((n) => n !== 'server-memory'),
  ]);
  assert.deepEqual(targetNames(['all', 'all']), builtins);
  // its declaration file, or its pinned version, names it too
  const file = join(ROOT, 'eval', 'targets', 'server-memory.json5');
  assert.deepEqual(targetNames(['all', file]), [...builtins.filter((n) => n !== 'server-memory'), file]);
  const pinned = `server-memory@${loadTarget('server-memory').decl.package!.version}`;
  assert.deepEqual(targetNames(['all', pinned]), [...builtins.filter((n) => n !== 'server-memory'), pinned]);
  // another version is a column of its own beside the pinned one
  assert.deepEqual(targetNames(['all', 'server-memory@0.6.2']), [...builtins, 'server-memory@0.6.2']);
});

test('targetNames: without all, the refs as given', () => {
  assert.deepEqual(targetNames(['server-memory', 'mcp-memory-keeper']), ['server-memory', 'mcp-memory-keeper']);
});
