import { test } from 'node:test';
import assert from 'node:assert/strict';
import { phaseVerdict } from '../../../src/judge/verdict.js';
import type { Judgment } from '../../../src/judge/judgment.js';

const j = (outcome: Judgment['outcome'], name: string, precondition = false): Judgment => ({
  name,
  kind: 'rank',
  phase: 'both',
  outcome,
  passed: outcome === 'pass' ? true : outcome === 'fail' ? false : null,
  actual: null,
  expected: 'guard',
  detail: outcome === 'abstain' ? 'no recall probe available in this phase' : '',
  ...(outcome === 'pass' || outcome === 'fail' ? { observed: '1 row of the memories view' } : {}),
  ...(precondition ? { precondition: true } : {}),
});

// a guard that abstained was never established: what the checks found is no more a fail or a
// catch than under a guard that failed
test('a precondition that abstained makes a failing check neither detected nor fail', () => {
  const violation = phaseVerdict({
    judgedAs: 'violation',
    expectation: 'detect',
    refusedCalls: 0,
    violationWrites: [{ seq: 1, op: 'remember', tool: 'save', refused: false }],
    judgments: [j('fail', 'check'), j('abstain', 'guard', true)],
  });
  assert.equal(violation.verdict, 'error', violation.reason);
  assert.match(violation.reason, /precondition could not be established: guard abstained \(no recall probe/);
  const wb = phaseVerdict({
    judgedAs: 'well-behaved',
    refusedCalls: 0,
    judgments: [j('fail', 'check'), j('abstain', 'guard', true)],
  });
  assert.equal(wb.verdict, 'error', wb.reason);
  // memeval's own observation of a refused well-behaved call still fails the cell
  assert.equal(
    phaseVerdict({
      judgedAs: 'well-behaved',
      refusedCalls: 1,
      judgments: [j('pass', 'check'), j('abstain', 'guard', true)],
    }).verdict,
    'fail',
  );
});

// selftest reads "did not hold" as a hostility met (a blackhole's guard found nothing): a guard
// that abstained observed nothing, so it must not read so
test('a precondition that abstained does not read as one that did not hold', () => {
  const v = phaseVerdict({
    judgedAs: 'well-behaved',
    refusedCalls: 0,
    judgments: [j('pass', 'check'), j('abstain', 'guard', true)],
  });
  assert.equal(v.verdict, 'error');
  assert.doesNotMatch(v.reason, /did not hold/);
});
