// The judges a kill scenario reads, over real evidence (real SQLite stores, a torn JSONL file):
// `integrity` observes a store that does not open or a line that does not parse, as a fail and
// never a harness error; the judges that could not read such a store are its consequence, so the
// cell is `fail` (or `detected`), while a broken store nobody checked stays `error`; `durable`
// judges what the target acknowledged, not writes a kill cut off.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { buildEvidence } from '../../../src/evidence/build.js';
import type { WriteRow } from '../../../src/evidence/writes.js';
import { runJudges } from '../../../src/judge/registry.js';
import { phaseVerdict } from '../../../src/judge/verdict.js';
import { assertionSchema, type Assertion } from '../../../src/scenario/schema.js';
import { targetSchema } from '../../../src/targets/schema.js';
import { tempDir } from '../../helpers.js';

const assertions = (xs: Record<string, unknown>[]): Assertion[] =>
  xs.map((x) => assertionSchema.parse({ phase: 'both', ...x }));

const sqliteTarget = targetSchema.parse({
  name: 'sqlite-test',
  description: 'a SQLite store made by the test',
  server: { command: 'true' },
  store: { format: 'sqlite', path: '{{data}}/s.db' },
  views: {
    memories:
      'SELECT id, body AS content, NULL AS category, NULL AS source, NULL AS subject, NULL AS created_at, 0 AS is_deleted FROM store.items',
  },
  ops: { remember: [{ tool: 'save', args: { text: '{{content}}' } }] },
});

const jsonlTarget = targetSchema.parse({
  name: 'jsonl-test',
  description: 'a JSONL store made by the test',
  server: { command: 'true' },
  store: { format: 'jsonl', path: '{{data}}/s.jsonl' },
  views: {
    memories:
      "SELECT json_extract(json, '$.id') AS id, json_extract(json, '$.text') AS content, NULL AS category, NULL AS source, NULL AS subject, NULL AS created_at, 0 AS is_deleted FROM store.records",
  },
  ops: { remember: [{ tool: 'save', args: { text: '{{content}}' } }] },
});

const write = (content: string, o: Partial<WriteRow> = {}): WriteRow => ({
  stage: 'step',
  step: 0,
  op: 'remember',
  memory: content.split(' ')[0]!,
  content,
  acknowledged: true,
  killed: false,
  ...o,
});

function sqliteStore(dir: string): string {
  mkdirSync(join(dir, 'fixture'), { recursive: true });
  const file = join(dir, 'fixture', 's.db');
  const db = new Database(file);
  db.exec("CREATE TABLE items (id TEXT, body TEXT); INSERT INTO items VALUES ('1', 'Alpha fact kept')");
  db.close();
  return file;
}

const CHECKS = assertions([
  { kind: 'integrity', name: 'intact' },
  { kind: 'count', name: 'alpha kept', contains: 'Alpha fact', op: 'eq', value: 1 },
  { kind: 'durable', name: 'durable' },
]);

const verdicts = (judgments: Awaited<ReturnType<typeof runJudges>>) =>
  (['well-behaved', 'violation'] as const).map(
    (judgedAs) =>
      phaseVerdict({
        judgedAs,
        expectation: 'detect',
        refusedCalls: 0,
        judgments,
        violationWrites: [],
      }).verdict,
  );

test('a healthy SQLite store: integrity_check ok, the acknowledged write holds', async (t) => {
  const dir = tempDir(t);
  const ev = buildEvidence(sqliteTarget, sqliteStore(dir), join(dir, 'cell'), [], undefined, undefined, undefined, {
    writes: [write('Alpha fact kept')],
  });
  t.after(() => ev.close());
  const [intact, count, durable] = await runJudges(CHECKS, { evidence: ev });
  assert.equal(intact!.outcome, 'pass', intact!.detail);
  assert.match(String(intact!.observed), /s\.db \(PRAGMA integrity_check\): ok/);
  assert.equal(count!.outcome, 'pass');
  assert.equal(durable!.outcome, 'pass', durable!.detail);
});

test('an SQLite store that does not open is a fail of the integrity judge; what reads it is its consequence, not an error of the cell', async (t) => {
  const dir = tempDir(t);
  const file = sqliteStore(dir);
  writeFileSync(file, 'this is not a database, the kill left garbage behind '.repeat(20));
  const ev = buildEvidence(sqliteTarget, file, join(dir, 'cell'), [], undefined, undefined, undefined, {
    writes: [write('Alpha fact kept')],
  });
  t.after(() => ev.close());
  assert.match(ev.storeUnreadable ?? '', /does not open/);
  const js = await runJudges(CHECKS, { evidence: ev });
  const [intact, count, durable] = js;
  assert.equal(intact!.outcome, 'fail');
  assert.match(intact!.detail, /the store does not open: file is not a database/);
  for (const j of [count!, durable!]) {
    assert.equal(j.outcome, 'error', j.detail);
    assert.equal(j.store_unreadable, true);
  }
  assert.deepEqual(verdicts(js), ['fail', 'detected']);
  // without the integrity judge nothing observed the broken store: the cell cannot be judged
  assert.deepEqual(verdicts([count!, durable!]), ['error', 'error']);
});

test('a JSONL store with a torn last line: the integrity judge names the line, the cell fails', async (t) => {
  const dir = tempDir(t);
  mkdirSync(join(dir, 'fixture'));
  const file = join(dir, 'fixture', 's.jsonl');
  writeFileSync(file, '{"id":"1","text":"Alpha fact kept"}\n{"id":"2","text":"Bravo fa');
  const ev = buildEvidence(jsonlTarget, file, join(dir, 'cell'), [], undefined, undefined, undefined, {
    writes: [write('Alpha fact kept'), write('Bravo fact cut', { acknowledged: false, killed: true })],
  });
  t.after(() => ev.close());
  const js = await runJudges(CHECKS, { evidence: ev });
  const [intact, count] = js;
  assert.equal(intact!.outcome, 'fail');
  assert.match(intact!.detail, /1 of 2 line\(s\) do not parse: line 2/);
  // the torn line reads as a row without content: the count cannot decide, beside the integrity fail
  assert.equal(count!.outcome, 'error');
  assert.deepEqual(verdicts(js), ['fail', 'detected']);
});

test('a store gone after a kill found it: integrity fails with what the kill saw', async (t) => {
  const dir = tempDir(t);
  const gone = 'the store is gone: it held 4096 bytes when the kill step (step 1) began';
  const ev = buildEvidence(
    sqliteTarget,
    join(dir, 'nothing.db'),
    join(dir, 'cell'),
    [],
    undefined,
    undefined,
    undefined,
    {
      writes: [write('Alpha fact kept')],
      gone,
    },
  );
  t.after(() => ev.close());
  const [intact, , durable] = await runJudges(CHECKS, { evidence: ev });
  assert.equal(intact!.outcome, 'fail');
  assert.match(intact!.detail, /the store is gone: it held 4096 bytes/);
  assert.equal(durable!.outcome, 'fail', 'the acknowledged write is lost with it');
});

test('durable: an acknowledged write lost fails; a write the kill cut off is listed, not judged; a forget must hold', async (t) => {
  const dir = tempDir(t);
  const judge = async (writes: WriteRow[]) => {
    const ev = buildEvidence(
      sqliteTarget,
      sqliteStore(join(dir, String(Math.random()))),
      join(dir, `cell-${Math.random()}`),
      [],
      undefined,
      undefined,
      undefined,
      { writes },
    );
    t.after(() => ev.close());
    return (await runJudges(assertions([{ kind: 'durable', name: 'durable' }]), { evidence: ev }))[0]!;
  };
  const lost = await judge([write('Alpha fact kept'), write('Bravo fact acknowledged')]);
  assert.equal(lost.outcome, 'fail');
  assert.match(lost.detail, /acknowledged and lost: remember "Bravo fact acknowledged"/);
  const cut = await judge([write('Alpha fact kept'), write('Bravo fact cut', { acknowledged: false, killed: true })]);
  assert.equal(cut.outcome, 'pass', cut.detail);
  assert.match(cut.detail, /never answered .*Bravo fact cut/);
  // refused: no promise was made
  const refused = await judge([write('Alpha fact kept'), write('Bravo fact refused', { acknowledged: false })]);
  assert.equal(refused.outcome, 'pass', refused.detail);
  // forgotten and acknowledged, but still live: back after the kill
  const back = await judge([
    write('Alpha fact kept', { memory: 'a' }),
    write('Alpha fact kept', { op: 'forget', memory: 'a' }),
  ]);
  assert.equal(back.outcome, 'fail');
  assert.match(back.detail, /forgotten and back/);
  // a forget in flight when the server was killed: the memory may be either way, not judged
  const unsettled = await judge([
    write('Alpha fact kept', { memory: 'a' }),
    write('Gamma fact kept', { memory: 'g' }),
    write('Gamma fact kept', { op: 'forget', memory: 'g', acknowledged: false, killed: true }),
  ]);
  assert.equal(unsettled.outcome, 'pass', unsettled.detail);
  // nothing acknowledged: nothing to check, never a pass
  const none = await judge([write('Alpha fact kept', { acknowledged: false, killed: true })]);
  assert.equal(none.outcome, 'abstain');
});
