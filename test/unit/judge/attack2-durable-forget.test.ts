// `durable` over a real SQLite store: a forgotten text that is part of a memory the scenario keeps
// (forget "likes tea", keep "likes tea with milk") is not the forgotten memory back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { buildEvidence } from '../../../src/evidence/build.js';
import type { WriteRow } from '../../../src/evidence/writes.js';
import { runJudges } from '../../../src/judge/registry.js';
import { assertionSchema } from '../../../src/scenario/schema.js';
import { targetSchema } from '../../../src/targets/schema.js';
import { tempDir } from '../../helpers.js';

const sqliteTarget = targetSchema.parse({
  name: 'sqlite-test',
  description: 'x',
  server: { command: 'true' },
  store: { format: 'sqlite', path: '{{data}}/s.db' },
  views: {
    memories:
      'SELECT id, body AS content, NULL AS category, NULL AS source, NULL AS subject, NULL AS created_at, 0 AS is_deleted FROM store.items',
  },
  ops: { remember: [{ tool: 'save', args: { text: '{{content}}' } }] },
});
const w = (memory: string, content: string, o: Partial<WriteRow> = {}): WriteRow => ({
  stage: 'step',
  step: 0,
  op: 'remember',
  memory,
  content,
  acknowledged: true,
  killed: false,
  ...o,
});
const A = [
  { kind: 'integrity', name: 'intact' },
  { kind: 'durable', name: 'durable' },
].map((x) => assertionSchema.parse({ phase: 'both', ...x }));
function store(dir: string, rows: string[]): string {
  mkdirSync(join(dir, 'fixture'), { recursive: true });
  const file = join(dir, 'fixture', 's.db');
  const db = new Database(file);
  db.exec('CREATE TABLE items (id TEXT, body TEXT)');
  rows.forEach((r, i) => db.prepare('INSERT INTO items VALUES (?, ?)').run(String(i + 1), r));
  db.close();
  return file;
}
const run = async (t: import('node:test').TestContext, rows: string[], writes: WriteRow[]) => {
  const dir = tempDir(t);
  const ev = buildEvidence(sqliteTarget, store(dir, rows), join(dir, 'cell'), [], undefined, undefined, undefined, {
    writes,
  });
  t.after(() => ev.close());
  return (await runJudges(A, { evidence: ev }))[1]!;
};
const WRITES = [
  w('a', 'User likes tea'),
  w('b', 'User likes tea with milk'),
  w('a', 'User likes tea', { op: 'forget' }),
];

test('a forgotten text inside a kept memory is not the forgotten memory back', async (t) => {
  const d = await run(t, ['User likes tea with milk'], WRITES);
  assert.equal(d.outcome, 'pass', d.detail);
});

test('the forgotten memory itself still live is caught beside a kept one that contains it', async (t) => {
  const d = await run(t, ['User likes tea with milk', 'User likes tea'], WRITES);
  assert.equal(d.outcome, 'fail', d.detail);
  assert.match(d.detail, /forgotten and back: forget "User likes tea" \(writes.seq 3\): live again in memory 2/);
});

// an empty (or blank) text is in every row: a durable check of it alone checked nothing
test('an acknowledged write of an empty text is not judged as held', async (t) => {
  const alone = await run(t, ['User likes tea'], [w('a', '  ')]);
  assert.equal(alone.outcome, 'abstain', alone.detail);
  assert.match(alone.detail, /empty text/);
  const beside = await run(t, ['User likes tea'], [w('a', ''), w('b', 'User likes tea')]);
  assert.equal(beside.outcome, 'pass', beside.detail);
  assert.match(beside.detail, /an empty text, in every row, not judged/);
});
