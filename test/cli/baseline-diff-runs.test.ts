import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type { Report } from '../../src/core/results.js';
import { diffReports, formatDiff } from '../../src/report/diff.js';
import { gate } from '../../src/report/gate.js';
import { readRun } from '../../src/report/reader.js';
import { faultyTarget, faultyTargetWithout, scenarioDir } from '../faulty.js';
import { freshRun, memeval, mixedScenarios, tempDir, writeJson, timeLimit } from '../helpers.js';

/** A copy of a real report with some cells' verdicts replaced (small crafted reports for the pure functions). */
function withVerdicts(
  r: Report,
  changes: Record<string, [Report['results'][number]['verdict'], boolean]>,
  runId = r.run_id,
): Report {
  const copy = structuredClone(r);
  copy.run_id = runId;
  for (const c of copy.results) if (changes[c.cell_id]) [c.verdict, c.fails_run] = changes[c.cell_id];
  return copy;
}

test(
  'gate and diff: regressions against a baseline or expected failures, fixes, changes, new and removed cells',
  { timeout: timeLimit(120_000) },
  async (t) => {
    const run = await freshRun(t, ['good-one', 'bad-one'], ['--scenarios', mixedScenarios(t)]);
    const { report } = readRun(run.runDir);
    const bad = 'bad-one/server-memory/well-behaved';
    const good = 'good-one/server-memory/well-behaved';
    assert.equal(report.results.find((r) => r.cell_id === bad)?.fails_run, true);

    // no baseline: every failure counts
    assert.deepEqual(
      gate(report, {}).regressions.map((r) => r.cell_id),
      [bad],
    );
    assert.equal(gate(report, {}).exit_code, 1);
    // the baseline failed the same cell: not a regression
    assert.equal(gate(report, { baseline: report }).exit_code, 0);
    assert.equal(gate(report, { baseline: report }).known.length, 1);
    assert.equal(gate(report, { baseline: report, failOn: 'failures' }).exit_code, 1);
    // the baseline passed it: a regression
    const passing = withVerdicts(report, { [bad]: ['pass', false] }, 'base');
    assert.deepEqual(
      gate(report, { baseline: passing }).regressions.map((r) => r.cell_id),
      [bad],
    );
    // expected failures accept it declaratively, and say when one starts passing
    const expected = [
      {
        scenario: 'bad-one',
        target: 'server-memory',
        phase: 'well-behaved' as const,
        verdict: 'fail' as const,
        assertions: ['dark mode twice'],
        reason: 'known defect',
      },
    ];
    assert.equal(gate(report, { expected }).exit_code, 0);
    assert.deepEqual(
      gate(passing, { expected }).unexpected_passes.map((r) => r.cell_id),
      [bad],
    );
    // an interrupted run never becomes a pass
    assert.equal(gate({ ...report, status: 'interrupted' }, { baseline: report }).exit_code, 130);

    const later = withVerdicts(report, { [bad]: ['pass', false], [good]: ['error', true] }, 'later');
    later.results = later.results.filter((r) => r.cell_id !== 'good-one/server-memory/violation');
    later.results.push({ ...later.results[0], cell_id: 'new-one/server-memory/well-behaved', scenario: 'new-one' });
    const d = diffReports(report, later);
    assert.deepEqual(
      d.regressed.map((c) => c.cell_id),
      [good],
    );
    assert.deepEqual(
      d.fixed.map((c) => c.cell_id),
      [bad],
    );
    assert.deepEqual(
      d.added.map((c) => c.cell_id),
      ['new-one/server-memory/well-behaved'],
    );
    assert.deepEqual(
      d.removed.map((c) => c.cell_id),
      ['good-one/server-memory/violation'],
    );
    assert.equal(d.unchanged, 1);

    // the CLI: diff text, --json, exit 1 on a regression
    const dir = tempDir(t);
    const laterFile = writeJson(join(dir, 'later.json'), later);
    const cli = await memeval(['diff', run.runDir, laterFile]);
    assert.equal(cli.exitCode, 1, cli.stderr);
    assert.match(cli.stdout, /1 regressed, 0 failing differently, 1 fixed, 0 changed, 1 new, 1 removed, 1 unchanged/);
    assert.match(cli.stdout, /regressed:\n {2}good-one\/server-memory\/well-behaved: pass -> error/);
    const json = await memeval(['diff', laterFile, laterFile, '--json']);
    assert.equal(json.exitCode, 0);
    // the errored cell (and its copy) checked nothing in either run: not checked, never unchanged
    assert.deepEqual([JSON.parse(json.stdout).unchanged, JSON.parse(json.stdout).not_checked.length], [2, 2]);
  },
);

test(
  'diff and gate never read an unsupported, skipped or errored cell as passed, fixed or unchanged',
  { timeout: timeLimit(120_000) },
  async (t) => {
    const run = await freshRun(t, ['good-one', 'bad-one'], ['--scenarios', mixedScenarios(t)]);
    const { report } = readRun(run.runDir);
    const good = 'good-one/server-memory/well-behaved';
    const goodV = 'good-one/server-memory/violation';
    const bad = 'bad-one/server-memory/well-behaved';
    const badV = 'bad-one/server-memory/violation';
    const before = withVerdicts(report, { [badV]: ['unsupported', false] }, 'before');
    // pass -> unsupported, pass -> skipped, fail -> unsupported: checked before, no longer checked now,
    // a regression (never fixed); unsupported -> unsupported: not checked, never unchanged
    const after = withVerdicts(
      report,
      {
        [good]: ['unsupported', false],
        [goodV]: ['skipped', false],
        [bad]: ['unsupported', false],
        [badV]: ['unsupported', false],
      },
      'after',
    );
    const d = diffReports(before, after);
    assert.deepEqual(d.regressed.map((c) => c.cell_id).sort(), [bad, good, goodV].sort());
    assert.deepEqual(d.fixed, []);
    assert.equal(d.unchanged, 0);
    assert.deepEqual(
      d.not_checked.map((c) => c.cell_id),
      [badV],
    );
    assert.match(
      formatDiff(d),
      /^before -> after: 3 regressed, 0 failing differently, 0 fixed, 0 changed, 0 new, 0 removed, 0 unchanged, 1 not checked\n/,
    );
    assert.match(
      formatDiff(d),
      /regressed:\n(.*\n)* {2}good-one\/server-memory\/well-behaved: pass -> unsupported \(no longer checked: /,
    );
    // fail -> error: not fixed, not unchanged, but failing differently (as the gate says); error -> error: not unchanged
    const errored = withVerdicts(report, { [bad]: ['error', true], [good]: ['error', true] }, 'errored');
    const e1 = diffReports(report, errored);
    assert.deepEqual(
      e1.regressed.map((c) => c.cell_id),
      [good],
    );
    assert.deepEqual(
      e1.failing_differently.map((c) => c.cell_id),
      [bad],
    );
    assert.deepEqual(e1.not_checked, []);
    assert.deepEqual(e1.fixed, []);
    const e2 = diffReports(errored, errored);
    assert.deepEqual(e2.not_checked.map((c) => c.cell_id).sort(), [bad, good].sort());
    assert.equal(e2.unchanged, 2);

    // gate: a cell the baseline checked and this run did not is a regression
    const g = gate(after, { baseline: report });
    assert.deepEqual(g.regressions.map((r) => r.cell_id).sort(), [bad, badV, good, goodV].sort());
    assert.equal(g.exit_code, 1);
    // expected failures: an unsupported listed cell is not an unexpected pass, and a run that checked nothing is exit 1
    const expected = [
      {
        scenario: 'bad-one',
        target: 'server-memory',
        phase: 'well-behaved' as const,
        verdict: 'fail' as const,
        assertions: ['dark mode twice'],
        reason: 'known defect',
      },
    ];
    const ge = gate(after, { expected });
    assert.deepEqual(ge.unexpected_passes, []);
    assert.deepEqual(
      ge.not_checked.map((r) => r.cell_id),
      [bad],
    );
    assert.equal(ge.exit_code, 1);
    assert.match(ge.nothing_checked ?? '', /nothing was checked/);
    // one cell checked (and passing) is enough for exit 0 under expected failures
    const partly = withVerdicts(after, { [good]: ['pass', false] });
    assert.equal(gate(partly, { expected }).exit_code, 0);
  },
);

test(
  'run --baseline / --expected-failures on a run whose every cell is unsupported: exit 1, never a pass',
  { timeout: timeLimit(180_000) },
  async (t) => {
    const dir = tempDir(t);
    const sc = scenarioDir(dir, 1);
    // the same target name, so the cells match: once with every op, once without remember
    const full = faultyTarget(dir, 'faulty', 'ok');
    const lackingDir = join(dir, 'lacking');
    mkdirSync(lackingDir);
    const lacking = faultyTargetWithout(lackingDir, 'faulty', ['remember']);
    const out = join(dir, 'runs');
    const first = await memeval(['run', '--scenarios', sc, '--target', full, '--out', join(out, 'first')]);
    assert.equal(first.exitCode, 0, String(first.stdout) + first.stderr);
    const firstRun = join(out, 'first', readdirSync(join(out, 'first'))[0]);
    const again = await memeval([
      'run',
      '--scenarios',
      sc,
      '--target',
      lacking,
      '--out',
      join(out, 'again'),
      '--baseline',
      firstRun,
    ]);
    assert.equal(again.exitCode, 1, String(again.stdout) + again.stderr);
    assert.match(
      String(again.stdout),
      /regression: s1\/faulty\/well-behaved unsupported: no longer checked \(pass in baseline .*\): target lacks op\(s\): remember/,
    );
    const expected = writeJson(join(dir, 'expected.json5'), [
      {
        scenario: 's1',
        target: 'faulty',
        phase: 'well-behaved',
        verdict: 'fail',
        assertions: ['dark mode once'],
        reason: 'known',
      },
    ]);
    const listed = await memeval([
      'run',
      '--scenarios',
      sc,
      '--target',
      lacking,
      '--out',
      join(out, 'listed'),
      '--expected-failures',
      expected,
    ]);
    assert.equal(listed.exitCode, 1, String(listed.stdout) + listed.stderr);
    assert.doesNotMatch(String(listed.stdout), /expected to fail but passed/);
    assert.match(
      String(listed.stdout),
      /expected failure not checked: s1\/faulty\/well-behaved \(unsupported: target lacks op\(s\): remember\)/,
    );
    assert.match(String(listed.stdout), /nothing was checked/);
    const saved = JSON.parse(
      readFileSync(join(out, 'listed', readdirSync(join(out, 'listed'))[0], 'report.json'), 'utf8'),
    );
    assert.equal(saved.summary.exit_code, 1);
  },
);

test(
  'run --baseline / --expected-failures / --fail-on gate the exit code, and the report says the same',
  { timeout: timeLimit(240_000) },
  async (t) => {
    const scenarios = mixedScenarios(t);
    const first = await freshRun(t, ['good-one', 'bad-one'], ['--scenarios', scenarios]);
    assert.equal(first.exitCode, 1);

    const again = await freshRun(t, ['good-one', 'bad-one'], ['--scenarios', scenarios, '--baseline', first.runDir]);
    assert.equal(again.exitCode, 0, again.stdout + again.stderr);
    assert.match(
      again.stdout,
      /known failure: bad-one\/server-memory\/well-behaved fail \(fails in baseline .* too \(fail on \[dark mode twice\]\)\)/,
    );
    const saved = JSON.parse(readFileSync(again.reportPath, 'utf8'));
    assert.equal(saved.summary.exit_code, 0);
    assert.equal(saved.gate.fail_on, 'regressions');

    const strict = await freshRun(
      t,
      ['good-one', 'bad-one'],
      ['--scenarios', scenarios, '--baseline', first.reportPath, '--fail-on', 'failures'],
    );
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
      {
        scenario: 'bad-one',
        target: 'server-memory',
        phase: 'well-behaved',
        verdict: 'fail',
        assertions: ['dark mode twice'],
        reason: 'expects two copies',
      },
    ]);
    const known = await freshRun(
      t,
      ['good-one', 'bad-one'],
      ['--scenarios', scenarios, '--expected-failures', expected],
    );
    assert.equal(known.exitCode, 0, known.stdout);
    assert.match(known.stdout, /known failure: .*expected failure: expects two copies/);
    // accepted: not announced as failing the run before "exit 0"
    assert.doesNotMatch(known.stdout, /fail the run:/);
    assert.match(known.stdout, /1 known failure\(s\) do not fail the run/);

    // an entry with a typo in the target accepts nothing, and says which cell it probably meant
    const misnamed = writeJson(join(dir, 'misnamed.json5'), [
      {
        scenario: 'bad-one',
        target: 'server-memroy',
        phase: 'well-behaved',
        verdict: 'fail',
        assertions: ['dark mode twice'],
        reason: 'expects two copies',
      },
    ]);
    const typoTarget = await freshRun(
      t,
      ['good-one', 'bad-one'],
      ['--scenarios', scenarios, '--expected-failures', misnamed],
    );
    assert.equal(typoTarget.exitCode, 1, typoTarget.stdout);
    assert.match(
      typoTarget.stdout,
      /warning: expected failure bad-one\/server-memroy\/well-behaved matches no cell of this run; nearest cell: bad-one\/server-memory\/well-behaved/,
    );

    // bad gate input is exit 3 before anything runs
    const typo = writeJson(join(dir, 'typo.json'), [
      {
        scenario: 'bad-one',
        target: 'server-memory',
        phase: 'well-behaved',
        verdict: 'fail',
        assertions: ['dark mode twice'],
        reasn: 'x',
      },
    ]);
    const out = tempDir(t);
    const r = await memeval([
      'run',
      '--scenarios',
      scenarios,
      '--target',
      'server-memory',
      '--expected-failures',
      typo,
      '--out',
      out,
    ]);
    assert.equal(r.exitCode, 3);
    assert.match(r.stderr, /typo\.json/);
    assert.deepEqual(readdirSync(out), []);
    const nob = await memeval([
      'run',
      '--scenarios',
      scenarios,
      '--target',
      'server-memory',
      '--baseline',
      join(dir, 'nope'),
      '--out',
      out,
    ]);
    assert.equal(nob.exitCode, 3);
    assert.match(nob.stderr, /nope\/?(report\.json)?: no report/);
  },
);

test('runs list / prune, and sql opens a cell from any directory', { timeout: timeLimit(120_000) }, async (t) => {
  const a = await freshRun(t, ['good-one'], ['--scenarios', mixedScenarios(t)]);
  const out = a.out;
  // a second and third run into the same --out
  for (let i = 0; i < 2; i++) {
    const r = await memeval([
      'run',
      '--scenarios',
      mixedScenarios(t),
      '--scenario',
      'good-one',
      '--target',
      'server-memory',
      '--out',
      out,
    ]);
    assert.equal(r.exitCode, 0, r.stderr);
  }
  const list = await memeval(['runs', 'list', '--runs', out, '--json']);
  const runs = JSON.parse(list.stdout);
  assert.equal(runs.length, 3);
  assert.ok(
    runs.every(
      (r: { status: string; cells: number; bytes: number }) => r.status === 'completed' && r.cells === 2 && r.bytes > 0,
    ),
  );
  const text = await memeval(['runs', 'list', '--runs', out]);
  assert.match(text.stdout, /completed +2 cells, 0 failed +[\d.]+ (kB|MB)/);
  const prune = await memeval(['runs', 'prune', '--keep', '1', '--runs', out]);
  assert.equal(prune.exitCode, 0);
  assert.match(prune.stdout, /removed 2 run\(s\)/);
  assert.deepEqual(readdirSync(out), [runs[2].run_id]);

  const runDir = join(out, runs[2].run_id);
  const sql = await memeval(
    ['sql', runDir, 'good-one', 'server-memory', 'violation', 'SELECT content FROM memories', '--json'],
    { cwd: tmpdir() },
  );
  assert.equal(sql.exitCode, 0, sql.stderr);
  assert.ok(JSON.parse(sql.stdout).some((r: { content: string }) => r.content.includes('sk_test_abcdef123456')));
  const tables = await memeval(['sql', runDir, 'good-one', 'server-memory', 'violation'], { cwd: tmpdir() });
  assert.match(tables.stdout, /main +\| calls +\| table/);
  assert.match(tables.stdout, /temp +\| memories +\| view/);
  const write = await memeval(['sql', runDir, 'good-one', 'server-memory', 'violation', 'DELETE FROM calls'], {
    cwd: tmpdir(),
  });
  assert.equal(write.exitCode, 3);
  assert.match(write.stderr, /only read-only queries/);
  const typo = await memeval(['sql', runDir, 'good-one', 'server-memry', 'violation']);
  assert.equal(typo.exitCode, 3);
  assert.match(typo.stderr, /did you mean "good-one\/server-memory\/violation"/);
  // the cell id as the console and reports print it, and the latest run where the config keeps runs
  const project = tempDir(t);
  writeJson(join(project, 'memeval.config.json'), { out });
  const byId = await memeval(
    ['sql', 'latest', 'good-one/server-memory/violation', 'SELECT count(*) AS n FROM memories', '--json'],
    { cwd: project },
  );
  assert.equal(byId.exitCode, 0, byId.stderr);
  assert.ok(JSON.parse(byId.stdout)[0].n >= 1);
  const idTypo = await memeval(['sql', runDir, 'good-one/server-memry/violation']);
  assert.equal(idTypo.exitCode, 3);
  assert.match(idTypo.stderr, /did you mean "good-one\/server-memory\/violation"/);
});
