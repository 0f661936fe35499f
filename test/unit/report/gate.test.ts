import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { CellResult, Report } from '../../../src/core/results.js';
import { formatGate, gate, readExpectedFailures } from '../../../src/report/gate.js';
import { formatRecap } from '../../../src/report/progress.js';
import { Chalk } from 'chalk';
import { InputError } from '../../../src/util/errors.js';
import { tempDir, writeJson } from '../../helpers.ts';

const CELL = 's1/faulty/well-behaved';

/** Smallest cell a pure gate needs (the fields the gate reads). */
function cell(over: Partial<CellResult>): CellResult {
  return {
    cell_id: CELL,
    scenario: 's1',
    target: 'faulty',
    phase: 'well-behaved',
    driver: 'replay',
    verdict: 'fail',
    reason: 'assertion(s) failed: a',
    fails_run: true,
    steps: [],
    assertions: [
      { name: 'a', kind: 'count', phase: 'both', outcome: 'fail', passed: false, actual: 1, expected: 2, detail: '' },
    ],
    fixture: 'removed',
    warnings: [],
    duration_ms: 1,
    cell_dir: 'cells/x',
    ...over,
  } as CellResult;
}
const reportOf = (results: CellResult[]) => ({ run_id: 'r', status: 'completed', results }) as unknown as Report;

test('gate: real-model entries name the agent; a warn-level assertion never counts; expected-failure files are checked at load', (t) => {
  const agentCell = (agent: string) =>
    cell({
      cell_id: `s1/faulty/real-model/${agent}-1`,
      phase: 'real-model',
      driver: 'agent',
      agent: { agent } as CellResult['agent'],
    });
  const entry = {
    scenario: 's1',
    target: 'faulty',
    phase: 'real-model' as const,
    agent: 'claude-code',
    verdict: 'fail' as const,
    assertions: ['a'],
    reason: 'r',
  };
  const g = gate(reportOf([agentCell('claude-code'), agentCell('codex')]), { expected: [entry] });
  assert.deepEqual(
    g.known.map((k) => k.cell_id),
    ['s1/faulty/real-model/claude-code-1'],
  );
  assert.deepEqual(
    g.regressions.map((k) => k.cell_id),
    ['s1/faulty/real-model/codex-1'],
  );
  assert.equal(g.exit_code, 1);
  // a cell that ended before its agent reported is still that agent's (its id names it)
  const early = cell({
    cell_id: 's1/faulty/real-model/codex-2',
    phase: 'real-model',
    driver: 'agent',
    verdict: 'error',
    assertions: [],
    reason: 'agent did not start: ENOENT',
  });
  const startFails = {
    ...entry,
    agent: 'codex',
    verdict: 'error' as const,
    assertions: [],
    reason_contains: 'agent did not start',
  };
  // beside a cell that was checked (a run that checked nothing exits 1 whatever the list says)
  const checked = cell({
    cell_id: 's2/faulty/real-model/codex-1',
    scenario: 's2',
    phase: 'real-model',
    driver: 'agent',
    verdict: 'pass',
    fails_run: false,
    reason: 'every assertion holds',
    assertions: [],
  });
  assert.equal(gate(reportOf([early, checked]), { expected: [startFails] }).exit_code, 0);
  assert.equal(gate(reportOf([early, checked]), { expected: [{ ...startFails, agent: 'claude-code' }] }).exit_code, 1);
  assert.equal(gate(reportOf([early]), { expected: [startFails] }).exit_code, 1, 'nothing was checked');

  // the failing set is the assertions that decided the verdict: a failing warn-level one is not in it
  const warned = cell({
    assertions: [
      ...cell({}).assertions,
      {
        name: 'w',
        kind: 'llm',
        phase: 'both',
        outcome: 'fail',
        passed: false,
        actual: null,
        expected: null,
        detail: '',
        level: 'warn',
      },
    ],
  });
  const det = {
    scenario: 's1',
    target: 'faulty',
    phase: 'well-behaved' as const,
    verdict: 'fail' as const,
    assertions: ['a'],
    reason: 'r',
  };
  assert.equal(gate(reportOf([warned]), { expected: [det] }).exit_code, 0);
  // no failing assertion (refused calls, a crash): the entry names text of the cell's reason instead
  const refused = cell({ assertions: [], reason: '2 well-behaved memory call(s) refused by the target' });
  const byReason = { ...det, assertions: [], reason_contains: 'refused by the target' };
  assert.equal(gate(reportOf([refused]), { expected: [byReason] }).exit_code, 0);
  assert.equal(
    gate(reportOf([cell({ assertions: [], reason: 'server did not start' })]), { expected: [byReason] }).exit_code,
    1,
  );

  const dir = tempDir(t);
  const load = (name: string, list: unknown[]) => () => readExpectedFailures(writeJson(join(dir, name), list));
  assert.throws(
    load('noagent.json', [{ ...entry, agent: undefined }]),
    (e: Error) => e instanceof InputError && /real-model entry names the agent/.test(e.message),
  );
  assert.throws(
    load('agent.json', [{ ...det, agent: 'codex' }]),
    (e: Error) => e instanceof InputError && /agent: only for phase real-model/.test(e.message),
  );
  assert.throws(
    load('empty.json', [{ ...det, assertions: [] }]),
    (e: Error) => e instanceof InputError && /reason_contains/.test(e.message),
  );
  assert.throws(
    load('pass.json', [{ ...det, verdict: 'pass' }]),
    (e: Error) => e instanceof InputError && /verdict/.test(e.message),
  );
  assert.equal(load('ok.json', [entry, det])().length, 2);
});

test('gate: an expected-failures entry that names no cell of the run is a warning naming the nearest cell', () => {
  const entry = {
    scenario: 's1',
    target: 'faulyt',
    phase: 'well-behaved' as const,
    verdict: 'fail' as const,
    assertions: ['a'],
    reason: 'typo in the target',
  };
  const g = gate(reportOf([cell({})]), { expected: [entry] });
  assert.deepEqual(g.unmatched_expected, [{ entry: 's1/faulyt/well-behaved', nearest: CELL }]);
  assert.ok(
    formatGate(g).includes(
      `warning: expected failure s1/faulyt/well-behaved matches no cell of this run; nearest cell: ${CELL}`,
    ),
  );
  // the typo accepts nothing: the failing cell still counts
  assert.equal(g.exit_code, 1);
  // an entry for a cell another shard runs is not a typo: the plan names every shard's cells
  const sharded = { ...reportOf([]), plan: { cells: ['s1/faulyt/well-behaved'] } } as unknown as Report;
  assert.equal(gate(sharded, { expected: [entry] }).unmatched_expected, undefined);
});

test('recap: a failure the gate accepts is not announced as failing the run before "exit 0"', () => {
  const known = cell({});
  const entry = {
    scenario: 's1',
    target: 'faulty',
    phase: 'well-behaved' as const,
    verdict: 'fail' as const,
    assertions: ['a'],
    reason: 'known',
  };
  const report = { ...reportOf([known]), summary: { by_verdict: { fail: 1 }, exit_code: 0 } } as unknown as Report;
  const g = gate(report, { expected: [entry] });
  assert.equal(g.exit_code, 0);
  const text = formatRecap({ ...report, gate: g, results: [known] }, '/r/report.json', 1000, new Chalk({ level: 0 }));
  assert.doesNotMatch(text, /fail the run:/);
  assert.match(text, /1 known failure\(s\) do not fail the run/);
  // without the gate's acceptance the same cell is announced
  const plain = formatRecap({ ...report, results: [known] }, '/r/report.json', 1000, new Chalk({ level: 0 }));
  assert.match(plain, /1 cell\(s\) fail the run:/);
});
