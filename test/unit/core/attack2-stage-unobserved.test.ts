// A stage reads its pass (or fail) words only from judgments that observed something: a pass
// with no `observed` (a judgment kept from an older memeval, a plug-in that named nothing) makes
// the cell `error`, and its stage must not read "marked" beside that error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cellStages } from '../../../src/core/stages.js';
import type { Judgment } from '../../../src/core/results.js';

const j = (outcome: Judgment['outcome'], observed?: string): Judgment => ({
  name: 'poison has its source',
  kind: 'plugin',
  phase: 'both',
  outcome,
  passed: outcome === 'pass' ? true : outcome === 'fail' ? false : null,
  actual: null,
  expected: 'source = web',
  detail: '',
  ...(observed !== undefined ? { observed } : {}),
  stage: { name: 'marked', pass: 'marked as from the web', fail: 'unmarked' },
});

test('a stage whose judgment decided without naming what it observed reads not judged', () => {
  for (const outcome of ['pass', 'fail'] as const) {
    const [s] = cellStages([j(outcome)]);
    assert.equal(s!.outcome, 'error', outcome);
    assert.match(s!.label, /^marked: not judged \(1 decided without naming what it observed\)$/);
    const [blank] = cellStages([j(outcome, '  ')]);
    assert.equal(blank!.outcome, 'error', outcome);
  }
  // observed, it reads its words
  assert.equal(cellStages([j('pass', '1 row of the memories view')])[0]!.label, 'marked as from the web');
  assert.equal(cellStages([j('fail', '1 row of the memories view')])[0]!.label, 'unmarked');
});
