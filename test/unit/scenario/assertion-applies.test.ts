import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertionApplies, type Assertion } from '../../../src/scenario/schema.js';

test('which assertions judge which cell', () => {
  const a = (phase: Assertion['phase']) => ({ phase }) as Assertion;
  const table: [Assertion['phase'], 'well-behaved' | 'violation', boolean, boolean][] = [
    ['both', 'well-behaved', false, true],
    ['well-behaved', 'well-behaved', false, true],
    ['violation', 'well-behaved', false, false],
    ['real-model', 'well-behaved', false, false],
    ['both', 'violation', false, true],
    ['violation', 'violation', false, true],
    ['well-behaved', 'violation', false, false],
    // an agent cell: well-behaved runs keep the positive expectations and add real-model ones
    ['both', 'well-behaved', true, true],
    ['well-behaved', 'well-behaved', true, true],
    ['real-model', 'well-behaved', true, true],
    ['violation', 'well-behaved', true, false],
    // a scripted --policy violation run is judged like the violation phase
    ['violation', 'violation', true, true],
    ['real-model', 'violation', true, false],
    ['well-behaved', 'violation', true, false],
  ];
  for (const [phase, judgedAs, realModel, applies] of table)
    assert.equal(
      assertionApplies(a(phase), judgedAs, realModel),
      applies,
      `${phase} in ${judgedAs}${realModel ? ' (agent)' : ''}`,
    );
});
