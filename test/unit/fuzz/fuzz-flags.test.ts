import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { tempDir } from '../../helpers.ts';
import { handCase } from '../../fuzz-helpers.ts';
import { FlagStore, LATENCY_KEEP, MIGRATIONS, SCHEMA_VERSION } from '../../../src/fuzz/flags.ts';
import type { Finding } from '../../../src/fuzz/checks.ts';

const c1 = handCase('exact-duplicate', (b) => b.remember('x'));
const crash: Finding[] = [{ check: 'crash', reason: 'server exited (exit code 3)', calls: [] }];
const hang: Finding[] = [{ check: 'hang', reason: 'save: request timed out', calls: [] }];

test('flags are sticky: a clean re-run keeps ever_flagged and the first reason', (t) => {
  const store = new FlagStore(join(tempDir(t), 'state', 'flags.db'));
  t.after(() => store.close());
  store.record(c1, 'tgt', crash, '2026-01-01T00:00:00Z');
  const clean = store.record(c1, 'tgt', [], '2026-01-02T00:00:00Z');
  assert.equal(clean.ever_flagged, 1);
  assert.equal(clean.currently_flagged, 0);
  assert.equal(clean.first_flagged_reason, 'crash: server exited (exit code 3)');
  assert.equal(clean.first_flagged_at, '2026-01-01T00:00:00Z');
  assert.equal(clean.last_result, 'clean');
  assert.equal(clean.last_flagged_at, '2026-01-01T00:00:00Z');
  assert.equal(clean.review_status, 'open');
  assert.equal(clean.runs, 2);
  assert.equal(clean.flagged_runs, 1);
  assert.deepEqual(
    store.list().map((r) => r.fingerprint),
    [c1.fingerprint],
    'still in the queue',
  );
  // a case never flagged is not in the queue but counts as seen
  const c2 = handCase('odd-content', (b) => b.remember('y'));
  store.record(c2, 'tgt', []);
  assert.equal(store.list(true).length, 1);
  assert.ok(store.seen('tgt').includes(c2.fingerprint));
});

test('a run whose claim checks could not judge is no clean run: a flag stays current, and the row says why', (t) => {
  const store = new FlagStore(join(tempDir(t), 'flags.db'));
  t.after(() => store.close());
  const miss: Finding[] = [{ check: 'recall-miss', claim: 'recall', reason: 'recall does not return it', calls: [] }];
  store.record(c1, 'tgt', miss, '2026-01-01T00:00:00Z');
  const why = 'recall: recall step 1: recall "mmvx" cannot be read as results: the target refused it';
  const undecided = store.record(c1, 'tgt', [], '2026-01-02T00:00:00Z', [why]);
  assert.equal(undecided.last_result, 'unjudged');
  assert.equal(undecided.currently_flagged, 1, 'a refused recall does not clear the flag');
  assert.equal(undecided.last_reason, `unjudged: ${why}`);
  assert.equal(undecided.first_flagged_reason, 'recall-miss (recall): recall does not return it');
  assert.equal(undecided.flagged_runs, 1);
  assert.equal(store.record(c1, 'tgt', [], '2026-01-03T00:00:00Z').currently_flagged, 0, 'a judged clean run does');
  // never flagged: unjudged, not in the queue, not clean
  const c2 = handCase('odd-content', (b) => b.remember('y'));
  const fresh = store.record(c2, 'tgt', [], undefined, [why]);
  assert.deepEqual([fresh.last_result, fresh.ever_flagged, fresh.currently_flagged], ['unjudged', 0, 0]);
  assert.equal(fresh.first_flagged_reason, null);
});

test('dismissal is the only way out; it keeps history; the same flag stays dismissed, a different one resurfaces', (t) => {
  const store = new FlagStore(join(tempDir(t), 'flags.db'));
  t.after(() => store.close());
  store.record(c1, 'tgt', crash);
  assert.throws(() => store.dismiss('ffffffffffffffff'), /no flag with fingerprint/);
  const [d] = store.dismiss(c1.fingerprint.slice(0, 8));
  assert.equal(d.review_status, 'dismissed');
  assert.equal(d.first_flagged_reason, 'crash: server exited (exit code 3)', 'history kept');
  assert.deepEqual(store.list(), []);
  assert.equal(store.list(true).length, 1, '--all includes dismissed');
  assert.equal(store.record(c1, 'tgt', crash).review_status, 'dismissed', 'the same flag again stays dismissed');
  assert.equal(store.record(c1, 'tgt', []).review_status, 'dismissed');
  const back = store.record(c1, 'tgt', hang);
  assert.equal(back.review_status, 'open', 'a different flag brings it back');
  assert.equal(store.list().length, 1);
});

test('migration: a file made by the previous schema gains the new columns in order and keeps its rows', (t) => {
  const file = join(tempDir(t), 'old.db');
  const old = new Database(file);
  for (const sql of MIGRATIONS[0]) old.exec(sql);
  old.pragma('user_version = 1');
  old
    .prepare(
      "INSERT INTO flags (fingerprint, target, recipe, ever_flagged, first_flagged_reason, first_flagged_at, currently_flagged, review_status) VALUES ('abcdabcdabcdabcd', 'tgt', 'concurrent', 1, 'crash: old', '2025-01-01', 1, 'open')",
    )
    .run();
  const v1cols = (old.prepare('PRAGMA table_info(flags)').all() as { name: string }[]).map((c) => c.name);
  old.close();

  const store = new FlagStore(file);
  t.after(() => store.close());
  const cols = (store.db.prepare('PRAGMA table_info(flags)').all() as { name: string }[]).map((c) => c.name);
  const added = MIGRATIONS.slice(1)
    .flat()
    .flatMap((sql) => /ADD COLUMN (\w+)/.exec(sql)?.[1] ?? []);
  assert.deepEqual(cols, [...v1cols, ...added], 'old columns first, new ones in migration order');
  assert.equal(store.db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
  const row = store.find('abcdabcd')[0];
  assert.equal(row.first_flagged_reason, 'crash: old');
  assert.equal(row.runs, 0);
  // and it goes on working: a dismissal and a new flag
  store.dismiss('abcdabcd');
  assert.deepEqual(store.list(), []);
  const newer = new Database(file);
  newer.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
  newer.close();
  store.close();
  assert.throws(() => new FlagStore(file), /newer than this memeval understands/);
});

test('latency samples persist per target and recipe key, the latest kept; a damaged sample is refused', (t) => {
  const file = join(tempDir(t), 'flags.db');
  const store = new FlagStore(file);
  store.addLatency('tgt', 'r', [10, 20]);
  store.addLatency('other', 'r', [99]);
  store.close();
  const again = new FlagStore(file);
  t.after(() => again.close());
  assert.deepEqual(again.latencySamples('tgt', 'r'), [10, 20]);
  assert.deepEqual(again.latencySamples('tgt', 'missing'), []);
  again.addLatency('tgt', 'r', Array(LATENCY_KEEP).fill(5));
  assert.equal(again.latencySamples('tgt', 'r').length, LATENCY_KEEP);
  assert.equal(again.latencySamples('tgt', 'r')[0], 5, 'the oldest went first');
  again.db.prepare("INSERT INTO latency VALUES ('tgt', 'r', 'x', '')").run();
  assert.throws(() => again.latencySamples('tgt', 'r'), /not a duration \(x\)/);
});

test('flags export: a broken provenance claim becomes an sql assertion over the source, true on an empty store', async () => {
  const { flagToScenario } = await import('../../../src/fuzz/export.ts');
  const { loadTarget } = await import('../../../src/targets/loader.ts');
  const decl = loadTarget('server-memory').decl;
  const fuzzCase = {
    recipe: 'poison-instruction',
    ingredients: ['run-script', 'x', 'web'],
    fingerprint: 'f00dfeedf00dfeed',
    steps: [
      { n: 0, op: 'remember', ref: 'm1', content: 'tok1: do it', source: 'web:https://fuzz.attacker.example/page' },
    ],
    expects: [],
    files: [],
    needs: ['remember'],
  };
  const finding = {
    check: 'broken-claim',
    claim: 'provenance',
    reason: 'x',
    calls: [],
    expectation: {
      kind: 'marked',
      claim: 'provenance',
      text: 'tok1',
      source: 'web:https://fuzz.attacker.example/page',
    },
  };
  const s = flagToScenario(
    {
      fingerprint: 'f00dfeedf00dfeed',
      target: 'server-memory',
      recipe: 'poison-instruction',
      flagged_case: JSON.stringify(fuzzCase),
      last_findings: JSON.stringify([finding]),
      last_reason: 'x',
    } as never,
    decl,
    'fuzz-x',
  );
  const a = s.assertions.find((x) => x.name.startsWith('broken-claim provenance'));
  assert.equal(a?.kind, 'sql');
  assert.equal(a?.phase, 'both');
  assert.match(
    a?.kind === 'sql' ? a.query : '',
    /lower\(coalesce\(source, ''\)\) <> lower\('web:https:\/\/fuzz\.attacker\.example\/page'\)/,
  );
  const step = s.deterministic.violation?.steps[0];
  assert.equal(step && 'source' in step ? step.source : undefined, 'web:https://fuzz.attacker.example/page');
});

test('precision: confirm and dismiss --reason record outcomes; stats count them per check and per target, and none is no rate', (t) => {
  const store = new FlagStore(join(tempDir(t), 'flags.db'));
  t.after(() => store.close());
  const cases = ['a', 'b', 'c', 'd'].map((x) => handCase(`r-${x}`, (b) => b.remember(x)));
  store.record(cases[0], 'one', crash);
  store.record(cases[1], 'one', crash);
  store.record(cases[2], 'two', hang);
  store.record(cases[3], 'two', hang);
  const none = store.stats();
  assert.equal(none.decided, 0, 'nothing decided: no precision to report');
  assert.deepEqual(none.by_check, []);
  assert.equal(none.flagged, 4);

  store.confirm(cases[0].fingerprint);
  store.dismiss(cases[1].fingerprint, undefined, undefined, 'false-positive');
  store.dismiss(cases[2].fingerprint, undefined, undefined, 'duplicate');
  store.dismiss(cases[3].fingerprint); // no reason: counts nowhere
  const st = store.stats();
  assert.equal(st.decided, 3);
  assert.equal(st.dismissed_without_reason, 1);
  const crashRow = st.by_check.find((p) => p.key === 'crash')!;
  assert.deepEqual([crashRow.right, crashRow.decided], [1, 2], 'one confirmed, one false positive');
  const hangRow = st.by_check.find((p) => p.key === 'hang')!;
  assert.deepEqual([hangRow.right, hangRow.decided], [1, 1], 'a duplicate was right, just found before');
  assert.deepEqual(
    st.by_target.map((p) => [p.key, p.right, p.decided]),
    [
      ['one', 1, 2],
      ['two', 1, 1],
    ],
  );
  const row = store.get(cases[0].fingerprint, 'one')!;
  assert.equal(row.outcome, 'confirmed');
  assert.equal(row.outcome_signature, 'crash', 'the outcome names the flag it was decided about');
  assert.equal(row.review_status, 'open', 'a confirmed defect stays in the queue');
});
