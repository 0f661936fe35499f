import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { memeval, tempDir } from '../../helpers.ts';
import { handCase, localDecl, writeDecl } from '../../fuzz-helpers.ts';
import { FlagStore, MIGRATIONS, SCHEMA_VERSION } from '../../../src/fuzz/flags.ts';
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
  assert.deepEqual(store.list().map((r) => r.fingerprint), [c1.fingerprint], 'still in the queue');
  // a case never flagged is not in the queue but counts as seen
  const c2 = handCase('odd-content', (b) => b.remember('y'));
  store.record(c2, 'tgt', []);
  assert.equal(store.list(true).length, 1);
  assert.ok(store.seen('tgt').includes(c2.fingerprint));
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
  old.prepare("INSERT INTO flags (fingerprint, target, recipe, ever_flagged, first_flagged_reason, first_flagged_at, currently_flagged, review_status) VALUES ('abcdabcdabcdabcd', 'tgt', 'concurrent', 1, 'crash: old', '2025-01-01', 1, 'open')").run();
  const v1cols = (old.prepare('PRAGMA table_info(flags)').all() as { name: string }[]).map((c) => c.name);
  old.close();

  const store = new FlagStore(file);
  t.after(() => store.close());
  const cols = (store.db.prepare('PRAGMA table_info(flags)').all() as { name: string }[]).map((c) => c.name);
  const added = MIGRATIONS[1].map((sql) => /ADD COLUMN (\w+)/.exec(sql)![1]);
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

test('memeval flags: list, --json, dismiss, unknown fingerprint; export writes a scenario that validate accepts and run runs', async (t) => {
  const dir = tempDir(t);
  const db = join(dir, 'flags.db');
  // a store that claims exact-dedupe but keeps every copy: a real broken claim for the fuzzer to find
  const declFile = writeDecl(dir, localDecl('dupes', '', { claims: ['exact-dedupe'] }));
  const fuzz = await memeval(['fuzz', '--target', declFile, '--recipe', 'exact-duplicate', '--budget', '2', '--seed', 'e', '--flags', db, '--out', join(dir, 'out')], { timeout: 120000 });
  assert.equal(fuzz.exitCode, 1, String(fuzz.stderr));
  assert.match(String(fuzz.stderr), /FLAG broken-claim\(exact-dedupe\)/);
  assert.ok(readdirSync(join(dir, 'out', 'dupes')).length === 2, 'flagged cases keep their evidence');

  const list = await memeval(['flags', '--flags', db, '--json']);
  assert.equal(list.exitCode, 0, String(list.stderr));
  const rows = JSON.parse(String(list.stdout)) as { fingerprint: string; currently_flagged: number; last_findings: Finding[] }[];
  assert.equal(rows.length, 2);
  assert.equal(rows[0].last_findings[0].check, 'broken-claim');
  assert.ok(rows[0].last_findings[0].calls.length >= 2, 'the finding names its calls');
  const fp = rows[0].fingerprint;

  const out = join(dir, 'regress');
  const exp = await memeval(['flags', 'export', fp, '--flags', db, '--target', declFile, '--out', out]);
  assert.equal(exp.exitCode, 0, String(exp.stderr));
  const file = String(exp.stdout).split('\n')[0];
  const scenario = JSON.parse(readFileSync(file, 'utf8'));
  assert.equal(scenario.deterministic.violation.defence, 'exact-dedupe');
  assert.ok(scenario.assertions.some((a: { kind: string }) => a.kind === 'sql'));
  const val = await memeval(['validate', file]);
  assert.equal(val.exitCode, 0, String(val.stdout) + String(val.stderr));
  const run = await memeval(['run', '--scenarios', out, '--target', declFile, '--out', join(dir, 'runs'), '--json', '--workers', '1'], { timeout: 120000 });
  const report = JSON.parse(String(run.stdout));
  const violation = report.results.find((r: { phase: string }) => r.phase === 'violation');
  assert.equal(violation.verdict, 'detected', JSON.stringify(violation));
  assert.equal(violation.fails_run, true, 'the target claims the defence it broke');
  const wb = report.results.find((r: { phase: string }) => r.phase === 'well-behaved');
  assert.equal(wb.verdict, 'pass', JSON.stringify(wb));
  // a store that keeps its claim defends the same scenario
  mkdirSync(join(dir, 'fixed'));
  const fixed = writeDecl(join(dir, 'fixed'), { ...localDecl('dupes', 'dedupe', { claims: ['exact-dedupe'] }) });
  const rerun = await memeval(['run', '--scenarios', out, '--target', fixed, '--out', join(dir, 'runs2'), '--json', '--workers', '1'], { timeout: 120000 });
  assert.equal(rerun.exitCode, 0, String(rerun.stdout).slice(0, 2000));
  assert.equal(JSON.parse(String(rerun.stdout)).results.find((r: { phase: string }) => r.phase === 'violation').verdict, 'defended');
  assert.equal(run.exitCode, 1);

  const unknown = await memeval(['flags', 'dismiss', '0000000000000000', '--flags', db]);
  assert.equal(unknown.exitCode, 3);
  assert.match(String(unknown.stderr), /no flag with fingerprint/);
  const dis = await memeval(['flags', 'dismiss', fp, '--flags', db]);
  assert.equal(dis.exitCode, 0, String(dis.stderr));
  const after = await memeval(['flags', '--flags', db]);
  assert.match(String(after.stdout), /1 flag\(s\) in the queue/);
  assert.ok(!String(after.stdout).includes(fp));
  const all = await memeval(['flags', '--flags', db, '--all']);
  assert.ok(String(all.stdout).includes(fp) && /dismissed/.test(String(all.stdout)));
  const missing = await memeval(['flags', '--flags', join(dir, 'nope.db')]);
  assert.equal(missing.exitCode, 3);
});
