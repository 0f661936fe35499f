import { test } from 'node:test';
import assert from 'node:assert/strict';
import { metrics } from '../../../src/judge/calibrate/metrics.ts';

test('metrics: kappa of a perfect and of a chance-level judge', () => {
  const perfect = metrics([
    { expected: 'pass', judged: 'pass' },
    { expected: 'fail', judged: 'fail' },
  ]);
  assert.equal(perfect.kappa, 1);
  const chance = metrics([
    { expected: 'pass', judged: 'pass' },
    { expected: 'pass', judged: 'fail' },
    { expected: 'fail', judged: 'pass' },
    { expected: 'fail', judged: 'fail' },
  ]);
  assert.equal(chance.kappa, 0);
});
