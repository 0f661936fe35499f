import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CellResult, Report } from '../../../src/core/results.js';
import { diffReports } from '../../../src/report/diff.js';
import { gate } from '../../../src/report/gate.js';
import { assertComparable, compareModel } from '../../../src/report/html/compare.js';
import { cellLabel, groupWarnings, pageModel } from '../../../src/report/html/model.js';
import { buildMatrix, formatMatrix } from '../../../src/report/matrix.js';
import { repeatStats } from '../../../src/report/repeats.js';
import { summarize } from '../../../src/report/report.js';
import { InputError } from '../../../src/util/errors.js';

function cell(over: Partial<CellResult>): CellResult {
  return {
    cell_id: 's1/t1/well-behaved',
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
const failing = (over: Partial<CellResult>) =>
  cell({
    verdict: 'fail',
    fails_run: true,
    assertions: [
      { name: 'a', kind: 'count', phase: 'both', outcome: 'fail', passed: false, actual: 1, expected: 2, detail: '' },
    ],
    ...over,
  });
const agentCell = (agent: string, repeat: number, over: Partial<CellResult> = {}) =>
  cell({
    cell_id: `s1/t1/real-model/${agent}-${repeat}`,
    phase: 'real-model',
    driver: 'agent',
    repeat,
    agent: { agent } as CellResult['agent'],
    ...over,
  });
function reportOf(results: CellResult[], over: Partial<Report> = {}): Report {
  const targets = [...new Set(results.map((r) => r.target))];
  return {
    schema_version: 2,
    run_id: 'r',
    status: 'completed',
    memeval_version: 'x',
    layer: 'deterministic',
    started_at: '',
    ended_at: '',
    options: {},
    scenarios: [],
    targets: targets.map((name) => ({ name, package: '', version: '1', claims: [] })),
    results,
    matrix: buildMatrix(results, targets),
    summary: { ...summarize(results, false), exit_code: 0 },
    warnings: [],
    ...over,
  } as Report;
}

test('cellLabel names the phase and repeat, or the agent and its repeat (never "real-model #1")', () => {
  assert.equal(cellLabel(cell({})), 'well-behaved');
  assert.equal(cellLabel(cell({ cell_id: 's1/t1/violation-2', phase: 'violation', repeat: 2 })), 'violation #2');
  assert.equal(cellLabel(agentCell('claude-code', 1)), 'claude-code #1');
  // a cell that ended before the agent reported: the agent from its id
  assert.equal(cellLabel(agentCell('codex', 3, { agent: undefined, repeat: undefined })), 'codex #3');
});

test('groupWarnings: one line per warning with its count and the targets it was given for', () => {
  const w = groupWarnings(
    ['a: recall format not declared', 'a@2: recall format not declared', 'b: recall format not declared', 'run-level'],
    ['a', 'a@2', 'b'],
  );
  assert.deepEqual(w, [
    { text: 'recall format not declared', count: 3, targets: ['a', 'a@2', 'b'] },
    { text: 'run-level', count: 1, targets: [] },
  ]);
});

test('gate marks per cell: known failure, new failure and fixed (a baseline failure that passes now)', () => {
  const baseline = reportOf([
    failing({ cell_id: 'known/t1/well-behaved', scenario: 'known' }),
    failing({ cell_id: 'fixed/t1/well-behaved', scenario: 'fixed' }),
    cell({ cell_id: 'new/t1/well-behaved', scenario: 'new' }),
  ]);
  const now = reportOf([
    failing({ cell_id: 'known/t1/well-behaved', scenario: 'known' }),
    cell({ cell_id: 'fixed/t1/well-behaved', scenario: 'fixed' }),
    failing({ cell_id: 'new/t1/well-behaved', scenario: 'new' }),
  ]);
  const g = gate(now, { baseline });
  assert.deepEqual(
    g.fixed?.map((c) => c.cell_id),
    ['fixed/t1/well-behaved'],
  );
  const m = pageModel({ ...now, gate: g } as Report);
  assert.deepEqual(Object.fromEntries(Object.entries(m.cells).map(([id, c]) => [id, c.gate])), {
    'known/t1/well-behaved': 'known failure',
    'fixed/t1/well-behaved': 'fixed',
    'new/t1/well-behaved': 'new failure',
  });
  assert.deepEqual(m.gate, { fail_on: 'regressions', known: 1, new: 1, fixed: 1 });
  // without a baseline or expected failures the gate says nothing about cells
  assert.equal(pageModel(now).gate, undefined);
  assert.deepEqual(
    Object.values(pageModel(now).cells).map((c) => c.gate),
    [undefined, undefined, undefined],
  );
});

test('several agents: a column per target × agent in the matrix, the page, the console and the repeats, never folded', () => {
  const results = [
    agentCell('claude-code', 1),
    agentCell('claude-code', 2, { verdict: 'fail', fails_run: true }),
    agentCell('codex', 1),
    agentCell('codex', 2),
  ];
  const m = buildMatrix(results, ['t1']);
  assert.deepEqual(m.targets, ['t1 · claude-code', 't1 · codex']);
  assert.deepEqual(m.agents, { 't1 · claude-code': 'claude-code', 't1 · codex': 'codex' });
  assert.equal(m.totals['t1 · claude-code'].failed, 1);
  assert.equal(m.totals['t1 · codex'].failed, 0);
  assert.match(formatMatrix(m), /scenario\s+t1 · claude-code\s+t1 · codex/);
  const page = pageModel(reportOf(results, { matrix: m }));
  assert.deepEqual(
    page.columns.map((c) => [c.key, c.target, c.agent]),
    [
      ['t1 · claude-code', 't1', 'claude-code'],
      ['t1 · codex', 't1', 'codex'],
    ],
  );
  assert.deepEqual(page.agents, ['claude-code', 'codex']);
  assert.equal(page.cells['s1/t1/real-model/codex-2'].column, 't1 · codex');
  assert.deepEqual(
    repeatStats(results).map((s) => [s.agent, s.runs, s.passed]),
    [
      ['claude-code', 2, 1],
      ['codex', 2, 2],
    ],
  );
  // one agent: the plain target column, as before
  assert.deepEqual(buildMatrix([agentCell('codex', 1)], ['t1']).targets, ['t1']);
});

test('compare: the changed cells with both verdicts; runs with no cell in common are refused, not "no changes"', () => {
  const a = reportOf([cell({}), failing({ cell_id: 's2/t1/well-behaved', scenario: 's2' })], { run_id: 'a' });
  const b = reportOf(
    [
      failing({}),
      cell({ cell_id: 's2/t1/well-behaved', scenario: 's2' }),
      cell({ cell_id: 's3/t1/well-behaved', scenario: 's3' }),
    ],
    { run_id: 'b' },
  );
  const d = diffReports(a, b);
  assertComparable(a, b, d);
  const m = compareModel(a, b, d);
  assert.deepEqual(
    m.entries.map((e) => [e.cell_id, e.kind, e.before, e.after, e.column, e.label]),
    [
      ['s1/t1/well-behaved', 'regressed', 'pass', 'fail', 't1', 'well-behaved'],
      ['s2/t1/well-behaved', 'fixed', 'fail', 'pass', 't1', 'well-behaved'],
      ['s3/t1/well-behaved', 'new', undefined, 'pass', 't1', 'well-behaved'],
    ],
  );
  assert.equal(m.common, 2);
  assert.equal(m.counts.regressed, 1);
  const other = reportOf([cell({ cell_id: 's1/t2/well-behaved', target: 't2' })], { run_id: 'c' });
  assert.throws(
    () => assertComparable(a, other, diffReports(a, other)),
    (e: unknown) => {
      assert.ok(e instanceof InputError);
      assert.match(e.message, /runs a .* and c .* have no cell in common/);
      return true;
    },
  );
});
