import { test } from 'node:test';
import assert from 'node:assert/strict';
import { whyNotRejudgeable } from '../../../src/scenario/kinds.ts';

test('absent is judged again only where the live cell scanned no fixture file beside the store (those are gone after the run)', () => {
  const absent = {
    kind: 'absent',
    name: 'no password',
    phase: 'both',
    text: 'hunter2',
    case_sensitive: false,
  } as const;
  assert.match(whyNotRejudgeable(absent as never, 3) ?? '', /also read 3 fixture file\(s\) beside the store/);
  assert.equal(whyNotRejudgeable(absent as never, 0), null);
  assert.equal(whyNotRejudgeable(absent as never), null);
});
