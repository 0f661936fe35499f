import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { memeval, tempDir, writeJson } from '../helpers.js';

test('two installs of the same target at once take turns: one installs, the other finds it done', async (t) => {
  const cache = tempDir(t);
  const env = { NO_COLOR: '1', MEMEVAL_CACHE_DIR: cache };
  const [a, b] = await Promise.all([
    memeval(['targets', 'install', 'mcp-memory-libsql'], { env }),
    memeval(['targets', 'install', 'mcp-memory-libsql'], { env }),
  ]);
  assert.equal(a.exitCode, 0, String(a.stderr));
  assert.equal(b.exitCode, 0, String(b.stderr));
  const outs = [String(a.stdout), String(b.stdout)];
  assert.equal(outs.filter((o) => /^installed mcp-memory-libsql/m.test(o)).length, 1, outs.join('\n---\n'));
  assert.equal(outs.filter((o) => /^already\s+mcp-memory-libsql/m.test(o)).length, 1, outs.join('\n---\n'));
  assert.deepEqual(
    readdirSync(join(cache, 'targets')),
    ['mcp-memory-libsql@0.0.17'],
    'no lock or staging dir left behind',
  );
  const list = await memeval(['targets', 'list'], { env });
  assert.match(String(list.stdout), /mcp-memory-libsql\s+installed/);
  assert.match(String(list.stdout), /memorix\s+not installed/);
});

test('a failed install says which package failed and why, exits 1, and leaves nothing half-installed', async (t) => {
  const cache = tempDir(t);
  const dir = tempDir(t);
  const file = writeJson(join(dir, 'ghost.json5'), {
    name: 'ghost',
    description: 'a package that does not exist, made by the test',
    package: { npm: 'memeval-test-no-such-package-7f3a', version: '0.0.1', bin: 'ghost' },
    store: { format: 'jsonl', path: '{{data}}/x.jsonl' },
    views: { memories: 'SELECT 1 AS id, 2 AS content, 3 AS category, 4 AS source, 0 AS is_deleted' },
    ops: {},
  });
  const r = await memeval(['targets', 'install', file], { env: { NO_COLOR: '1', MEMEVAL_CACHE_DIR: cache } });
  assert.equal(r.exitCode, 1);
  assert.match(
    String(r.stderr),
    /install failed: ghost: npm install of memeval-test-no-such-package-7f3a@0\.0\.1 failed/,
  );
  assert.deepEqual(readdirSync(join(cache, 'targets')), []);
  const run = await memeval(['run', '--target', file, '--out', dir], {
    env: { NO_COLOR: '1', MEMEVAL_CACHE_DIR: cache },
  });
  assert.equal(run.exitCode, 3);
  assert.match(String(run.stderr), /not installed; run `memeval targets install ghost`/);
});
