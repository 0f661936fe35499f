import { test } from 'node:test';
import assert from 'node:assert/strict';
import { durationMs } from '../../../src/util/duration.js';

test('durations: units add up; anything else, and zero, is not a duration', () => {
  assert.equal(durationMs('30d'), 30 * 86_400_000);
  assert.equal(durationMs('1h30m'), 5_400_000);
  assert.equal(durationMs('2w1d'), 15 * 86_400_000);
  assert.equal(durationMs('250ms'), 250);
  assert.equal(durationMs('1m5s'), 65_000);
  for (const bad of ['', '30', 'd', '30 days', '-1d', '1.5h', '0d', '0h0m', '1y'])
    assert.equal(durationMs(bad), undefined, bad);
});
