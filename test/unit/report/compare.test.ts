/**
 * One comparison of a cell before and after (report/cell-compare.ts) for `diff`, `view --compare`
 * and the gate: they never disagree on whether a cell changed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { CellResult, Report } from '../../../src/core/results.js';
import { diffRuns } from '../../../src/app/diff.js';
import { diffColumns, diffReports, formatDiff, versionChanges } from '../../../src/report/diff.js';
import { gate } from '../../../src/report/gate.js';
import { compareModel } from '../../../src/report/html/compare.js';
import { buildMatrix } from '../../../src/report/matrix.js';
import { summarize } from '../../../src/report/report.js';
import { tempDir, writeJson } from '../../helpers.ts';

const ID = 's1/t1/well-behaved';

function cell(over: Partial<CellResult>): CellResult {
  return {
    cell_id: ID,
    scenario: 's1',
    target: 't1',
    phase: 'well-behaved',
    driver: 'replay',
    verdict: 'pass',
    reason: 'ok',
    fails_run: false,
    steps: [],
    assertions: [],
    fixture: 'removed',
    warnings: [],
    duration_ms: 1,
    cell_dir: 'cells/x',
    ...over,
  } as CellResult;
}
/** A cell failing the run on the named assertions. */
const failing = (names: string[], over: Partial<CellResult> = {}) =>
  cell({
    verdict: 'fail',
    fails_run: true,
    reason: `assertion(s) failed: ${names.join(', ')}`,
    assertions: names.map((name) => ({
      name,
      kind: 'count',
      phase: 'both',
      outcome: 'fail' as const,
      passed: false,
      actual: 1,
      expected: 2,
      detail: '',
    })),
    ...over,
  });
const repeat = (n: number, c: CellResult) => ({ ...c, cell_id: `${ID}-${n}`, repeat: n });

function reportOf(run_id: string, results: CellResult[]): Report {
  return {
    schema_version: 2,
    run_id,
    status: 'completed',
    memeval_version: 'x',
    layer: 'deterministic',
    started_at: '2025-01-01T00:00:00.000Z',
    ended_at: '2025-01-01T00:00:01.000Z',
    options: {},
    scenarios: ['s1'],
    targets: [{ name: 't1', package: '', version: '1', claims: [] }],
    results,
    matrix: buildMatrix(results, ['t1']),
    summary: summarize(results, false),
    warnings: [],
  } as Report;
}

test('route 9: a cell that still fails, on other assertions, is "failing differently" in diff, view --compare and the gate alike', () => {
  const a = reportOf('a', [failing(['copies of dark mode'])]);
  const b = reportOf('b', [failing(['no dark mode stored'])]);
  const d = diffReports(a, b);
  assert.equal(d.unchanged, 0, 'never "unchanged"');
  assert.deepEqual(
    d.failing_differently.map((c) => [c.cell_id, c.before, c.after]),
    [[ID, 'fail', 'fail']],
  );
  assert.match(
    d.failing_differently[0].reason,
    /failed with fail on \[copies of dark mode\], now fail on \[no dark mode stored\]/,
  );
  assert.match(formatDiff(d), /^a -> b: 0 regressed, 1 failing differently, 0 fixed, .* 0 unchanged/);
  assert.match(formatDiff(d), /\nexit 1: 1 failing differently$/);
  const m = compareModel(a, b, d);
  assert.deepEqual(
    m.entries.map((e) => [e.cell_id, e.kind]),
    [[ID, 'failing differently']],
  );
  assert.equal(m.unchanged, 0);
  // the gate, from the same comparison: a regression with the same reason
  const g = gate(b, { baseline: a });
  assert.deepEqual(
    g.regressions.map((r) => [r.cell_id, r.why]),
    [[ID, 'baseline failed with fail on [copies of dark mode], now fail on [no dark mode stored]']],
  );
  // another failing verdict is a different failure too; the same failure is unchanged and known
  const undetected = reportOf('c', [failing(['copies of dark mode'], { verdict: 'undetected' })]);
  assert.equal(diffReports(a, undetected).failing_differently.length, 1);
  assert.equal(gate(undetected, { baseline: a }).regressions.length, 1);
  assert.equal(diffReports(a, a).unchanged, 1);
  assert.doesNotMatch(formatDiff(diffReports(a, a)), /exit 1/);
  assert.equal(gate(a, { baseline: a }).known.length, 1);
  // a failing check that could no longer run (error) is not the failure the baseline accepted either
  const errored = reportOf('e', [cell({ verdict: 'error', fails_run: true, reason: 'target crashed' })]);
  assert.equal(diffReports(a, errored).failing_differently.length, 1);
  assert.equal(diffReports(a, errored).not_checked.length, 0);
  assert.equal(gate(errored, { baseline: a }).regressions.length, 1);
  // the same failure at another version of the target: the gate does not accept it, so diff says so too
  const v1 = reportOf('v1', [failing(['copies of dark mode'], { target_version: '1.0.0' })]);
  const v2 = reportOf('v2', [failing(['copies of dark mode'], { target_version: '2.0.0' })]);
  assert.equal(diffReports(v1, v2).failing_differently.length, 1);
  assert.equal(gate(v2, { baseline: v1 }).regressions.length, 1);
  // two columns compared as two versions on purpose (diff --columns, the matrix's version changes): the same failure is unchanged
  const col = (target: string, version: string) =>
    failing(['copies of dark mode'], { cell_id: `s1/${target}/well-behaved`, target, target_version: version });
  const both = reportOf('both', [col('t1@1.0.0', '1.0.0'), col('t1', '2.0.0')]);
  const d2 = diffColumns(both, 't1@1.0.0', both, 't1');
  assert.deepEqual([d2.unchanged, d2.failing_differently.length], [1, 0]);
  assert.deepEqual(
    versionChanges(both.results, { 't1@1.0.0': '1.0.0', t1: '2.0.0' }).map((v) => [v.unchanged, v.failing_differently]),
    [[1, []]],
  );
});

test('route 8: repeats (x-1, x-2) are matched to their base cell x; one failing repeat where x passed is a regression', () => {
  const a = reportOf('a', [cell({})]);
  const b = reportOf('b', [repeat(1, cell({})), repeat(2, failing(['copies of dark mode'])), repeat(3, cell({}))]);
  const d = diffReports(a, b);
  assert.deepEqual(
    d.regressed.map((c) => [c.cell_id, c.before_id, c.before, c.after]),
    [[`${ID}-2`, ID, 'pass', 'fail']],
  );
  assert.match(d.regressed[0].reason, /^1 of 3 repeats fail the run: /);
  assert.deepEqual([d.added, d.removed], [[], []], 'repeats are not new cells, the base cell not removed');
  assert.match(formatDiff(d), /regressed:\n {2}s1\/t1\/well-behaved-2 \(against s1\/t1\/well-behaved\): pass -> fail/);
  assert.deepEqual(
    compareModel(a, b, d).entries.map((e) => [e.cell_id, e.before_id, e.kind]),
    [[`${ID}-2`, ID, 'regressed']],
  );
  // every repeat passing as the base cell did: unchanged; the other way round (repeats before) too
  const allPass = reportOf('c', [repeat(1, cell({})), repeat(2, cell({}))]);
  assert.equal(diffReports(a, allPass).unchanged, 1);
  assert.equal(diffReports(b, a).fixed.length, 1);
  // the gate matches them the same way: failing as the base cell failed is known, a passing base is not
  const base = reportOf('base', [failing(['copies of dark mode'])]);
  assert.deepEqual(
    gate(b, { baseline: base }).known.map((k) => k.cell_id),
    [`${ID}-2`],
  );
  assert.deepEqual(
    gate(b, { baseline: a }).regressions.map((k) => k.cell_id),
    [`${ID}-2`],
  );
  // agent repeats: codex-1..2 against codex-1
  const agent = (n: number, over: Partial<CellResult> = {}) =>
    cell({ cell_id: `s1/t1/real-model/codex-${n}`, phase: 'real-model', driver: 'agent', repeat: n, ...over });
  const ra = reportOf('ra', [agent(1)]);
  const rb = reportOf('rb', [agent(1), agent(2, { verdict: 'fail', fails_run: true })]);
  assert.deepEqual(
    diffReports(ra, rb).regressed.map((c) => c.cell_id),
    ['s1/t1/real-model/codex-2'],
  );
});

test('route 19: diff exits 1 (with the reason) when checked cells of the earlier run are only removed, never 0 in silence', (t) => {
  const other = cell({ cell_id: 's2/t1/well-behaved', scenario: 's2' });
  const a = reportOf('a', [cell({}), other]);
  const b = reportOf('b', [cell({})]);
  const dir = tempDir(t);
  const [fa, fb] = [writeJson(join(dir, 'a.json'), a), writeJson(join(dir, 'b.json'), b)];
  const r = diffRuns(fa, fb);
  assert.deepEqual(
    r.diff.removed.map((c) => c.cell_id),
    ['s2/t1/well-behaved'],
  );
  assert.equal(r.exitCode, 1);
  assert.match(
    formatDiff(r.diff),
    /\nexit 1: 1 cell\(s\) checked in a have no result in b, which says nothing about them \(compare runs of the same cells\)$/,
  );
  // a removed cell that was never checked says nothing either way: no failure for it
  const c = reportOf('c', [cell({}), { ...other, verdict: 'unsupported', reason: 'target lacks op(s): recall' }]);
  assert.equal(diffRuns(writeJson(join(dir, 'c.json'), c), fb).exitCode, 0);
  // and a new cell that fails the run is counted as the gate counts it
  const d = reportOf('d', [cell({}), failing(['x'], { cell_id: 's3/t1/well-behaved', scenario: 's3' })]);
  const added = diffRuns(fb, writeJson(join(dir, 'd.json'), d));
  assert.equal(added.exitCode, 1);
  assert.match(formatDiff(added.diff), /\nexit 1: 1 new cell\(s\) fail the run$/);
});
