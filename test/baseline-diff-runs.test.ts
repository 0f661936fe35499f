import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type { Report } from '../src/core/results.js';
import { diffReports } from '../src/report/diff.js';
import { gate } from '../src/report/gate.js';
import { readRun } from '../src/report/reader.js';
import { freshRun, memeval, mixedScenarios, tempDir, writeJson } from './helpers.js';

/** A copy of a real report with some cells' verdicts replaced (small crafted reports for the pure functions). */
function withVerdicts(r: Report, changes: Record<string, [Report['results'][number]['verdict'], boolean]>, runId = r.run_id): Report {
  const copy = structuredClone(r);
  copy.run_id = runId;
  for (const c of copy.results) if (changes[c.cell_id]) [c.verdict, c.fails_run] = changes[c.cell_id];
  return copy;
}

test('gate and diff: regressions against a baseline or expected failures, fixes, changes, new and removed cells', { timeout: 120_000 }, async (t) => {
  const run = await freshRun(t, ['good-one', 'bad-one'], ['--scenarios', mixedScenarios(t)]);
  const { report } = readRun(run.runDir);
  const bad = 'bad-one/server-memory/well-behaved';
  const good = 'good-one/server-memory/well-behaved';
  assert.equal(report.results.find((r) => r.cell_id === bad)?.fails_run, true);

  // no baseline: every failure counts
  assert.deepEqual(gate(report, {}).regressions.map((r) => r.cell_id), [bad]);
  assert.equal(gate(report, {}).exit_code, 1);
  // the baseline failed the same cell: not a regression
  assert.equal(gate(report, { baseline: report }).exit_code, 0);
  assert.equal(gate(report, { baseline: report }).known.length, 1);
  assert.equal(gate(report, { baseline: report, failOn: 'failures' }).exit_code, 1);
  // the baseline passed it: a regression
  const passing = withVerdicts(report, { [bad]: ['pass', false] }, 'base');
  assert.deepEqual(gate(report, { baseline: passing }).regressions.map((r) => r.cell_id), [bad]);
  // expected failures accept it declaratively, and say when one starts passing
  const expected = [{ scenario: 'bad-one', target: 'server-memory', phase: 'well-behaved' as const, verdict: 'fail' as const, assertions: ['dark mode twice'], reason: 'known defect' }];
  assert.equal(gate(report, { expected }).exit_code, 0);
  assert.deepEqual(gate(passing, { expected }).unexpected_passes.map((r) => r.cell_id), [bad]);
  // an interrupted run never becomes a pass
  assert.equal(gate({ ...report, status: 'interrupted' }, { baseline: report }).exit_code, 130);

  const later = withVerdicts(report, { [bad]: ['pass', false], [good]: ['error', true] }, 'later');
  later.results = later.results.filter((r) => r.cell_id !== 'good-one/server-memory/violation');
  later.results.push({ ...later.results[0], cell_id: 'new-one/server-memory/well-behaved', scenario: 'new-one' });
  const d = diffReports(report, later);
  assert.deepEqual(d.regressed.map((c) => c.cell_id), [good]);
  assert.deepEqual(d.fixed.map((c) => c.cell_id), [bad]);
  assert.deepEqual(d.added.map((c) => c.cell_id), ['new-one/server-memory/well-behaved']);
  assert.deepEqual(d.removed.map((c) => c.cell_id), ['good-one/server-memory/violation']);
  assert.equal(d.unchanged, 1);

  // the CLI: diff text, --json, exit 1 on a regression
  const dir = tempDir(t);
  const laterFile = writeJson(join(dir, 'later.json'), later);
  const cli = await memeval(['diff', run.runDir, laterFile]);
  assert.equal(cli.exitCode, 1, cli.stderr);
  assert.match(cli.stdout, /1 regressed, 1 fixed, 0 changed, 1 new, 1 removed, 1 unchanged/);
  assert.match(cli.stdout, /regressed:\n {2}good-one\/server-memory\/well-behaved: pass -> error/);
  const json = await memeval(['diff', laterFile, laterFile, '--json']);
  assert.equal(json.exitCode, 0);
  assert.equal(JSON.parse(json.stdout).unchanged, 4);
});

test('run --baseline / --expected-failures / --fail-on gate the exit code, and the report says the same', { timeout: 240_000 }, async (t) => {
  const scenarios = mixedScenarios(t);
  const first = await freshRun(t, ['good-one', 'bad-one'], ['--scenarios', scenarios]);
  assert.equal(first.exitCode, 1);

  const again = await freshRun(t, ['good-one', 'bad-one'], ['--scenarios', scenarios, '--baseline', first.runDir]);
  assert.equal(again.exitCode, 0, again.stdout + again.stderr);
  assert.match(again.stdout, /known failure: bad-one\/server-memory\/well-behaved fail \(fails in baseline .* too \(fail on \[dark mode twice\]\)\)/);
  const saved = JSON.parse(readFileSync(again.reportPath, 'utf8'));
  assert.equal(saved.summary.exit_code, 0);
  assert.equal(saved.gate.fail_on, 'regressions');

  const strict = await freshRun(t, ['good-one', 'bad-one'], ['--scenarios', scenarios, '--baseline', first.reportPath, '--fail-on', 'failures']);
  assert.equal(strict.exitCode, 1);

  // a baseline in which bad-one passed: now it is a regression
  const base = JSON.parse(readFileSync(first.reportPath, 'utf8'));
  for (const r of base.results) if (r.scenario === 'bad-one') Object.assign(r, { verdict: 'pass', fails_run: false });
  const baseFile = writeJson(join(tempDir(t), 'base.json'), base);
  const regressed = await freshRun(t, ['good-one', 'bad-one'], ['--scenarios', scenarios, '--baseline', baseFile]);
  assert.equal(regressed.exitCode, 1);
  assert.match(regressed.stdout, /regression: bad-one\/server-memory\/well-behaved fail/);

  const dir = tempDir(t);
  const expected = writeJson(join(dir, 'expected.json5'), [
    { scenario: 'bad-one', target: 'server-memory', phase: 'well-behaved', verdict: 'fail', assertions: ['dark mode twice'], reason: 'expects two copies' },
  ]);
  const known = await freshRun(t, ['good-one', 'bad-one'], ['--scenarios', scenarios, '--expected-failures', expected]);
  assert.equal(known.exitCode, 0, known.stdout);
  assert.match(known.stdout, /known failure: .*expected failure: expects two copies/);

  // bad gate input is exit 3 before anything runs
  const typo = writeJson(join(dir, 'typo.json'), [{ scenario: 'bad-one', target: 'server-memory', phase: 'well-behaved', verdict: 'fail', assertions: ['dark mode twice'], reasn: 'x' }]);
  const out = tempDir(t);
  const r = await memeval(['run', '--scenarios', scenarios, '--target', 'server-memory', '--expected-failures', typo, '--out', out]);
  assert.equal(r.exitCode, 3);
  assert.match(r.stderr, /typo\.json/);
  assert.deepEqual(readdirSync(out), []);
  const nob = await memeval(['run', '--scenarios', scenarios, '--target', 'server-memory', '--baseline', join(dir, 'nope'), '--out', out]);
  assert.equal(nob.exitCode, 3);
  assert.match(nob.stderr, /nope\/?(report\.json)?: no report/);
});

test('runs list / prune, and sql opens a cell from any directory', { timeout: 120_000 }, async (t) => {
  const a = await freshRun(t, ['good-one'], ['--scenarios', mixedScenarios(t)]);
  const out = a.out;
  // a second and third run into the same --out
  for (let i = 0; i < 2; i++) {
    const r = await memeval(['run', '--scenarios', mixedScenarios(t), '--scenario', 'good-one', '--target', 'server-memory', '--out', out]);
    assert.equal(r.exitCode, 0, r.stderr);
  }
  const list = await memeval(['runs', 'list', '--runs', out, '--json']);
  const runs = JSON.parse(list.stdout);
  assert.equal(runs.length, 3);
  assert.ok(runs.every((r: { status: string; cells: number; bytes: number }) => r.status === 'completed' && r.cells === 2 && r.bytes > 0));
  const text = await memeval(['runs', 'list', '--runs', out]);
  assert.match(text.stdout, /completed +2 cells, 0 failed +[\d.]+ (kB|MB)/);
  const prune = await memeval(['runs', 'prune', '--keep', '1', '--runs', out]);
  assert.equal(prune.exitCode, 0);
  assert.match(prune.stdout, /removed 2 run\(s\)/);
  assert.deepEqual(readdirSync(out), [runs[2].run_id]);

  const runDir = join(out, runs[2].run_id);
  const sql = await memeval(['sql', runDir, 'good-one', 'server-memory', 'violation', 'SELECT content FROM memories', '--json'], { cwd: tmpdir() });
  assert.equal(sql.exitCode, 0, sql.stderr);
  assert.ok(JSON.parse(sql.stdout).some((r: { content: string }) => r.content.includes('sk_test_abcdef123456')));
  const tables = await memeval(['sql', runDir, 'good-one', 'server-memory', 'violation'], { cwd: tmpdir() });
  assert.match(tables.stdout, /main +\| calls +\| table/);
  assert.match(tables.stdout, /temp +\| memories +\| view/);
  const write = await memeval(['sql', runDir, 'good-one', 'server-memory', 'violation', 'DELETE FROM calls'], { cwd: tmpdir() });
  assert.equal(write.exitCode, 3);
  assert.match(write.stderr, /only read-only queries/);
  const typo = await memeval(['sql', runDir, 'good-one', 'server-memry', 'violation']);
  assert.equal(typo.exitCode, 3);
  assert.match(typo.stderr, /did you mean "good-one server-memory violation"/);
});
