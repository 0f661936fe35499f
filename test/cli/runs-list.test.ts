import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { memeval, tempDir } from '../helpers.ts';

test('runs list --out DIR: lists runs written elsewhere with layer, agent and targets; a missing folder is exit 3, an empty one says so', async (t) => {
  const out = tempDir(t);
  const run = join(out, '2026-01-02T00-00-00Z-aaaaaa');
  mkdirSync(run);
  writeFileSync(
    join(run, 'report.json'),
    JSON.stringify({
      status: 'completed',
      layer: 'deterministic',
      targets: [{ name: 'server-memory' }, { name: 'mem0' }],
      options: {},
      summary: { cells: 4, failed: 1 },
    }),
  );
  const list = await memeval(['runs', 'list', '--out', out]);
  assert.equal(list.exitCode, 0, String(list.stderr));
  assert.match(
    String(list.stdout),
    /^2026-01-02T00-00-00Z-aaaaaa  run +completed +4 cells, 1 failed +[\d.]+ kB +deterministic +- +server-memory,mem0$/m,
  );

  const missing = join(out, 'nope');
  const gone = await memeval(['runs', 'list', '--out', missing]);
  assert.equal(gone.exitCode, 3, String(gone.stdout));
  assert.match(
    String(gone.stderr),
    new RegExp(`no folder ${missing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.*--out DIR`),
  );

  const empty = tempDir(t);
  const none = await memeval(['runs', 'list', '--out', empty]);
  assert.equal(none.exitCode, 0, String(none.stderr));
  assert.match(String(none.stdout), /^no runs under .*--out DIR/);
});
