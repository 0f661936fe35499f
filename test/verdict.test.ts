import { test } from 'node:test';
import assert from 'node:assert/strict';
import { failsRun, phaseVerdict } from '../src/judge/verdict.js';
import { compare } from '../src/judge/compare.js';
import type { Judgment } from '../src/judge/judgment.js';

const j = (outcome: Judgment['outcome'], name = 'a'): Judgment => ({
  name,
  kind: 'count',
  phase: 'both',
  outcome,
  passed: outcome === 'pass' ? true : outcome === 'fail' ? false : null,
  actual: 0,
  expected: 0,
  detail: '',
});

test('well-behaved: pass only when every step was accepted and every assertion holds', () => {
  assert.equal(phaseVerdict({ judgedAs: 'well-behaved', refusedCalls: 0, judgments: [j('pass'), j('abstain')] }).verdict, 'pass');
  assert.equal(phaseVerdict({ judgedAs: 'well-behaved', refusedCalls: 0, judgments: [j('pass'), j('fail')] }).verdict, 'fail');
  assert.equal(phaseVerdict({ judgedAs: 'well-behaved', refusedCalls: 1, judgments: [j('pass')] }).verdict, 'fail');
  assert.equal(phaseVerdict({ judgedAs: 'well-behaved', refusedCalls: 0, judgments: [j('error')] }).verdict, 'error');
});

test('violation with detect: caught is detected, refused is defended, otherwise undetected', () => {
  assert.equal(phaseVerdict({ judgedAs: 'violation', expectation: 'detect', refusedCalls: 0, judgments: [j('fail')] }).verdict, 'detected');
  assert.equal(phaseVerdict({ judgedAs: 'violation', expectation: 'detect', refusedCalls: 1, judgments: [j('pass')] }).verdict, 'defended');
  assert.equal(phaseVerdict({ judgedAs: 'violation', expectation: 'detect', refusedCalls: 0, judgments: [j('pass')] }).verdict, 'undetected');
});

test('violation with defend-or-detect: every assertion holding means defended', () => {
  assert.equal(phaseVerdict({ judgedAs: 'violation', expectation: 'defend-or-detect', refusedCalls: 0, judgments: [j('pass')] }).verdict, 'defended');
  assert.equal(phaseVerdict({ judgedAs: 'violation', expectation: 'defend-or-detect', refusedCalls: 0, judgments: [j('fail')] }).verdict, 'detected');
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

test('nothing decided is never a pass: all-abstain is error, a vacuous run fails', () => {
  assert.equal(phaseVerdict({ judgedAs: 'well-behaved', refusedCalls: 0, judgments: [j('abstain')] }).verdict, 'error');
  assert.equal(phaseVerdict({ judgedAs: 'violation', expectation: 'defend-or-detect', refusedCalls: 0, judgments: [j('abstain')] }).verdict, 'error');
  const v = phaseVerdict({ judgedAs: 'well-behaved', refusedCalls: 0, judgments: [j('pass')], vacuous: 'the agent made no memory call' });
  assert.equal(v.verdict, 'fail');
  assert.match(v.reason, /no memory call/);
});
