/**
 * Issue 31: `diff` of two identical runs printed a line per `unsupported -> unsupported` cell, and
 * `view --compare` led with the same cells. Both lead with what changed and fold the cells neither
 * run checked into one count; a not-checked cell that fails the run, or whose verdict moved, stays listed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CellResult, Report } from '../../../src/core/results.js';
import { diffReports, formatDiff } from '../../../src/report/diff.js';
import { compareModel } from '../../../src/report/html/compare.js';
import { buildMatrix } from '../../../src/report/matrix.js';
import { summarize } from '../../../src/report/report.js';

function cell(i: number, over: Partial<CellResult>): CellResult {
  return {
    cell_id: `s${i}/t1/well-behaved`,
    scenario: `s${i}`,
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
    scenarios: [...new Set(results.map((r) => r.scenario))],
    targets: [{ name: 't1', package: '', version: '1', claims: [] }],
    results,
    matrix: buildMatrix(results, ['t1']),
    summary: summarize(results, false),
    warnings: [],
  } as Report;
}

/** 3 passing cells and 30 the target lacks an op for, in both runs. */
const cells = () => [
  ...[0, 1, 2].map((i) => cell(i, {})),
  ...Array.from({ length: 30 }, (_, k) =>
    cell(10 + k, { verdict: 'unsupported', reason: 'target lacks op(s): expire' }),
  ),
];

test('diff of two identical runs leads with "nothing changed" and folds the 30 unsupported cells into one line', () => {
  const d = diffReports(reportOf('a', cells()), reportOf('b', cells()));
  assert.equal(d.not_checked.length, 30, 'the JSON still lists every one');
  const text = formatDiff(d);
  assert.match(text.split('\n')[0], /^a -> b: nothing changed: 3 unchanged, 30 not checked in either run$/);
  assert.doesNotMatch(text, /unsupported -> unsupported \(/, 'no line per cell');
  assert.match(text, /30 cell\(s\) not checked in either run \(unsupported -> unsupported 30\)/);
  assert.ok(text.split('\n').length <= 3, text);
});

test('with a change, the change leads; a not-checked cell that moved or fails the run stays listed', () => {
  const before = cells();
  const after = cells();
  after[0] = cell(0, { verdict: 'fail', fails_run: true, reason: 'assertion(s) failed: kept' });
  before[3] = cell(10, { verdict: 'unsupported', reason: 'lacks' });
  after[3] = cell(10, { verdict: 'skipped', reason: 'interrupted' });
  before[4] = cell(11, { verdict: 'error', fails_run: true, reason: 'server crashed' });
  after[4] = cell(11, { verdict: 'error', fails_run: true, reason: 'server crashed' });
  const lines = formatDiff(diffReports(reportOf('a', before), reportOf('b', after))).split('\n');
  assert.match(lines[0], /^a -> b: 1 regressed, /);
  assert.equal(lines[1], 'regressed:');
  assert.ok(lines.includes('  s10/t1/well-behaved: unsupported -> skipped (interrupted)'), lines.join('\n'));
  assert.ok(lines.includes('  s11/t1/well-behaved: error -> error (server crashed)'), lines.join('\n'));
  assert.ok(lines.some((l) => /^28 cell\(s\) not checked in either run \(unsupported -> unsupported 28\)/.test(l)));
});

test('view --compare draws only what changed and counts the cells neither run checked', () => {
  const after = cells();
  after[0] = cell(0, { verdict: 'fail', fails_run: true, reason: 'assertion(s) failed: kept' });
  const m = compareModel(
    reportOf('a', cells()),
    reportOf('b', after),
    diffReports(reportOf('a', cells()), reportOf('b', after)),
  );
  assert.deepEqual(
    m.entries.map((e) => [e.cell_id, e.kind]),
    [['s0/t1/well-behaved', 'regressed']],
  );
  assert.equal(m.counts['not checked'], 0);
  assert.deepEqual(m.folded, { 'unsupported -> unsupported': 30 });
});
