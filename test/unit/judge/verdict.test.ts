import { test } from 'node:test';
import assert from 'node:assert/strict';
import { failsRun, phaseVerdict } from '../../../src/judge/verdict.js';
import { compare } from '../../../src/judge/compare.js';
import type { Judgment } from '../../../src/judge/judgment.js';

const j = (outcome: Judgment['outcome'], name = 'a'): Judgment => ({
  name,
  kind: 'count',
  phase: 'both',
  outcome,
  passed: outcome === 'pass' ? true : outcome === 'fail' ? false : null,
  actual: 0,
  expected: 0,
  detail: '',
  ...(outcome === 'pass' || outcome === 'fail' ? { observed: '1 row of the memories view' } : {}),
});
const write = (refused: boolean, op = 'remember', seq = 1) => ({ seq, op, tool: 'save', refused });

test('well-behaved: pass only when every step was accepted and every assertion holds', () => {
  assert.equal(
    phaseVerdict({ judgedAs: 'well-behaved', refusedCalls: 0, judgments: [j('pass'), j('pass', 'b')] }).verdict,
    'pass',
  );
  assert.equal(
    phaseVerdict({ judgedAs: 'well-behaved', refusedCalls: 0, judgments: [j('pass'), j('fail')] }).verdict,
    'fail',
  );
  assert.equal(phaseVerdict({ judgedAs: 'well-behaved', refusedCalls: 1, judgments: [j('pass')] }).verdict, 'fail');
  assert.equal(phaseVerdict({ judgedAs: 'well-behaved', refusedCalls: 0, judgments: [j('error')] }).verdict, 'error');
});

test('violation with detect: caught is detected, refused is defended, otherwise undetected', () => {
  assert.equal(
    phaseVerdict({ judgedAs: 'violation', expectation: 'detect', refusedCalls: 0, judgments: [j('fail')] }).verdict,
    'detected',
  );
  assert.equal(
    phaseVerdict({
      judgedAs: 'violation',
      expectation: 'detect',
      refusedCalls: 1,
      violationWrites: [write(true)],
      judgments: [j('pass')],
    }).verdict,
    'defended',
  );
  assert.equal(
    phaseVerdict({
      judgedAs: 'violation',
      expectation: 'detect',
      refusedCalls: 0,
      violationWrites: [write(false)],
      judgments: [j('pass')],
    }).verdict,
    'undetected',
  );
});

test('violation with defend-or-detect: every assertion holding means defended', () => {
  assert.equal(
    phaseVerdict({
      judgedAs: 'violation',
      expectation: 'defend-or-detect',
      refusedCalls: 0,
      violationWrites: [write(false)],
      judgments: [j('pass')],
    }).verdict,
    'defended',
  );
  assert.equal(
    phaseVerdict({ judgedAs: 'violation', expectation: 'defend-or-detect', refusedCalls: 0, judgments: [j('fail')] })
      .verdict,
    'detected',
  );
});

test('what fails the run: detected only where the target claims the defence', () => {
  assert.equal(failsRun('detected', false), false);
  assert.equal(failsRun('detected', true), true);
  for (const v of ['fail', 'undetected', 'invalid', 'error'] as const) assert.equal(failsRun(v, false), true, v);
  for (const v of ['pass', 'defended', 'unsupported'] as const) assert.equal(failsRun(v, true), false, v);
});

test('compare: numbers numerically (also numeric strings from SQL), text otherwise', () => {
  assert.ok(compare(2, 'gt', 1));
  assert.ok(compare('10', 'gt', 9));
  assert.ok(!compare(1, 'eq', 2));
  assert.ok(compare(0n, 'eq', 0));
  assert.ok(compare('abc', 'eq', 'abc'));
  assert.ok(compare('abc', 'ne', 'abd'));
  assert.ok(compare(3, 'lte', 3) && compare(3, 'gte', 3) && compare(2, 'lt', 3));
});

test('well-behaved: an assertion that abstained was not checked, so the cell is error naming it (a warn-level one never decides)', () => {
  const v = phaseVerdict({
    judgedAs: 'well-behaved',
    refusedCalls: 0,
    judgments: [j('pass'), { ...j('abstain', 'judged by a model'), detail: 'no judge model' }],
  });
  assert.equal(v.verdict, 'error');
  assert.match(v.reason, /judged by a model \(no judge model\)/);
  assert.equal(
    phaseVerdict({
      judgedAs: 'well-behaved',
      refusedCalls: 0,
      judgments: [j('pass'), { ...j('abstain', 'w'), level: 'warn' }],
    }).verdict,
    'pass',
  );
  // a failure still decides: the cell fails whatever else abstained
  assert.equal(
    phaseVerdict({ judgedAs: 'well-behaved', refusedCalls: 0, judgments: [j('fail'), j('abstain', 'b')] }).verdict,
    'fail',
  );
});

test('nothing decided is never a pass: all-abstain is error, a vacuous run fails', () => {
  assert.equal(phaseVerdict({ judgedAs: 'well-behaved', refusedCalls: 0, judgments: [j('abstain')] }).verdict, 'error');
  assert.equal(
    phaseVerdict({ judgedAs: 'violation', expectation: 'defend-or-detect', refusedCalls: 0, judgments: [j('abstain')] })
      .verdict,
    'error',
  );
  const v = phaseVerdict({
    judgedAs: 'well-behaved',
    refusedCalls: 0,
    judgments: [j('pass')],
    vacuous: 'the agent made no memory call',
  });
  assert.equal(v.verdict, 'fail');
  assert.match(v.reason, /no memory call/);
});

test('defended must be earned: a refused recall is no defence of an accepted violating write', () => {
  // the only refused call of the phase was a recall; the write that violates went in
  const v = phaseVerdict({
    judgedAs: 'violation',
    expectation: 'detect',
    refusedCalls: 1,
    violationWrites: [write(false)],
    judgments: [j('pass')],
  });
  assert.equal(v.verdict, 'undetected', v.reason);
  const d = phaseVerdict({
    judgedAs: 'violation',
    expectation: 'detect',
    refusedCalls: 1,
    violationWrites: [write(false), write(true, 'remember', 2)],
    judgments: [j('pass')],
  });
  assert.equal(d.verdict, 'defended');
  assert.match(d.reason, /save \(remember, calls\.seq 2\)/);
});

test('defended must be earned: an abstaining assertion that targets the violation makes the cell error, naming it', () => {
  for (const [expectation, writes] of [
    ['defend-or-detect', [write(false)]],
    ['detect', [write(true)]],
  ] as const) {
    const v = phaseVerdict({
      judgedAs: 'violation',
      expectation,
      refusedCalls: 0,
      violationWrites: [...writes],
      judgments: [j('pass', 'kept'), j('abstain', 'ranked first')],
    });
    assert.equal(v.verdict, 'error', `${expectation}: ${v.reason}`);
    assert.match(v.reason, /ranked first/);
  }
  // a decided fail still catches the violation whatever else abstained
  assert.equal(
    phaseVerdict({
      judgedAs: 'violation',
      expectation: 'detect',
      refusedCalls: 0,
      violationWrites: [write(false)],
      judgments: [j('fail'), j('abstain', 'b')],
    }).verdict,
    'detected',
  );
});

test('defended must be earned: neutralised needs a violating write that went in; an input without the writes defends nothing', () => {
  const none = phaseVerdict({
    judgedAs: 'violation',
    expectation: 'defend-or-detect',
    refusedCalls: 0,
    violationWrites: [],
    judgments: [j('pass')],
  });
  assert.equal(none.verdict, 'error', none.reason);
  assert.match(none.reason, /no memory write/);
  const unknown = phaseVerdict({
    judgedAs: 'violation',
    expectation: 'defend-or-detect',
    refusedCalls: 1,
    judgments: [j('pass')],
  });
  assert.equal(unknown.verdict, 'error', unknown.reason);
  assert.match(unknown.reason, /violating writes/);
  // a violation made of recalls alone that nothing caught is still undetected
  assert.equal(
    phaseVerdict({
      judgedAs: 'violation',
      expectation: 'detect',
      refusedCalls: 0,
      violationWrites: [],
      judgments: [j('pass')],
    }).verdict,
    'undetected',
  );
});

test('a provider fault never served: every verdict of the assertions becomes error naming it', () => {
  const unservedFaults = ['embeddings down'];
  const pass = phaseVerdict({ judgedAs: 'well-behaved', refusedCalls: 0, judgments: [j('pass')], unservedFaults });
  assert.equal(pass.verdict, 'error');
  assert.match(pass.reason, /provider fault\(s\) never served: embeddings down; .*said pass/);
  const cases: Parameters<typeof phaseVerdict>[0][] = [
    { judgedAs: 'violation', expectation: 'detect', refusedCalls: 0, judgments: [j('fail')] },
    {
      judgedAs: 'violation',
      expectation: 'defend-or-detect',
      refusedCalls: 0,
      judgments: [j('pass')],
      violationWrites: [write(false)],
    },
    { judgedAs: 'well-behaved', refusedCalls: 0, judgments: [j('fail')] },
    { judgedAs: 'well-behaved', refusedCalls: 1, judgments: [j('pass')] },
    {
      judgedAs: 'violation',
      expectation: 'detect',
      refusedCalls: 0,
      judgments: [j('pass')],
      violationWrites: [write(false)],
    },
  ];
  const without = cases.map((c) => phaseVerdict(c).verdict);
  assert.deepEqual(without, ['detected', 'defended', 'fail', 'fail', 'undetected']);
  for (const [i, c] of cases.entries()) {
    const v = phaseVerdict({ ...c, unservedFaults });
    assert.equal(v.verdict, 'error', `${without[i]} with a fault never served`);
    assert.match(v.reason, new RegExp(`assertions alone said ${without[i]}`));
  }
  // an error keeps its own reason; an empty list is no unserved fault
  assert.match(
    phaseVerdict({ judgedAs: 'well-behaved', refusedCalls: 0, judgments: [j('error')], unservedFaults }).reason,
    /^judge error/,
  );
  assert.equal(
    phaseVerdict({ judgedAs: 'well-behaved', refusedCalls: 0, judgments: [j('pass')], unservedFaults: [] }).verdict,
    'pass',
  );
});

test('a decision that names nothing it observed is error in both phases: never pass, never caught (fails on main before this change)', () => {
  const bare = { ...j('fail'), observed: undefined };
  const empty = { ...j('pass'), observed: '  ' };
  for (const judgments of [[bare], [empty], [j('pass', 'b'), bare]]) {
    const wb = phaseVerdict({ judgedAs: 'well-behaved', refusedCalls: 0, judgments });
    assert.equal(wb.verdict, 'error', JSON.stringify(judgments));
    assert.match(wb.reason, /without naming what they observed/);
    const v = phaseVerdict({
      judgedAs: 'violation',
      expectation: 'detect',
      refusedCalls: 0,
      judgments,
      violationWrites: [write(false)],
    });
    assert.equal(v.verdict, 'error', JSON.stringify(judgments));
  }
});

const guard = (outcome: Judgment['outcome'], name = 'guard'): Judgment => ({ ...j(outcome, name), precondition: true });

test('a precondition that fails makes the cell error in either phase, never fail or detected', () => {
  const violation = phaseVerdict({
    judgedAs: 'violation',
    expectation: 'detect',
    refusedCalls: 0,
    violationWrites: [write(false)],
    judgments: [j('pass', 'check'), guard('fail')],
  });
  assert.equal(violation.verdict, 'error');
  assert.match(violation.reason, /the scenario's precondition did not hold: guard \(got 0, expected 0\)/);
  // a check that failed beside it is no catch either: its evidence is what the guard says is unsound
  const both = phaseVerdict({
    judgedAs: 'violation',
    expectation: 'detect',
    refusedCalls: 0,
    violationWrites: [write(false)],
    judgments: [j('fail', 'check'), guard('fail')],
  });
  assert.equal(both.verdict, 'error');
  assert.match(both.reason, /precondition did not hold: guard.*check failed/);
  const wb = phaseVerdict({
    judgedAs: 'well-behaved',
    refusedCalls: 0,
    judgments: [j('pass', 'check'), guard('fail')],
  });
  assert.equal(wb.verdict, 'error');
  assert.match(wb.reason, /precondition did not hold/);
  // a refused well-behaved call is memeval's own observation: it still fails the cell
  assert.equal(
    phaseVerdict({ judgedAs: 'well-behaved', refusedCalls: 1, judgments: [j('pass', 'check'), guard('fail')] }).verdict,
    'fail',
  );
});

test('a precondition that holds never makes a cell pass or defended on its own', () => {
  for (const judgedAs of ['well-behaved', 'violation'] as const) {
    const v = phaseVerdict({
      judgedAs,
      expectation: 'defend-or-detect',
      refusedCalls: 0,
      violationWrites: [write(false)],
      judgments: [j('abstain', 'check'), guard('pass')],
    });
    assert.equal(v.verdict, 'error', judgedAs);
    const only = phaseVerdict({
      judgedAs,
      expectation: 'defend-or-detect',
      refusedCalls: 0,
      violationWrites: [write(false)],
      judgments: [guard('pass')],
    });
    assert.equal(only.verdict, 'error', judgedAs);
    assert.match(only.reason, /nothing was checked/);
  }
  // holding, it lets the checks decide as before
  assert.equal(
    phaseVerdict({
      judgedAs: 'violation',
      expectation: 'detect',
      refusedCalls: 0,
      violationWrites: [write(false)],
      judgments: [j('fail', 'check'), guard('pass')],
    }).verdict,
    'detected',
  );
});
