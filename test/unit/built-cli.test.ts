import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { staleBuiltFile } from '../setup/built-cli.ts';
import { tempDir } from '../helpers.js';

test('the built CLI is used only when every source file is older than its built file', (t) => {
  const root = tempDir(t);
  mkdirSync(join(root, 'src', 'cli'), { recursive: true });
  mkdirSync(join(root, 'dist', 'cli'), { recursive: true });
  const src = join(root, 'src', 'cli', 'entry.ts');
  const built = join(root, 'dist', 'cli', 'entry.js');
  writeFileSync(src, '');
  assert.equal(staleBuiltFile(root), 'src/cli/entry.ts', 'no built file: stale');
  writeFileSync(built, '');
  utimesSync(src, 1000, 1000);
  utimesSync(built, 2000, 2000);
  assert.equal(staleBuiltFile(root), undefined);
  utimesSync(src, 3000, 3000);
  assert.equal(staleBuiltFile(root), 'src/cli/entry.ts', 'source edited after the build: stale');
  utimesSync(src, 1000, 1000);
  writeFileSync(join(root, 'src', 'new.ts'), '');
  assert.equal(staleBuiltFile(root), 'src/new.ts', 'a new source file not built yet: stale');
});
