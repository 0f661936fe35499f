import { test } from 'node:test';
import assert from 'node:assert/strict';
import { whyNotRejudgeable } from '../../../src/judge/rejudge/rejudge.ts';

test('absent is judged again only where the live cell scanned no fixture file beside the store (those are gone after the run)', () => {
  const absent = {
    kind: 'absent',
    name: 'no password',
    phase: 'both',
    text: 'hunter2',
    case_sensitive: false,
  } as const;
  assert.match(
    whyNotRejudgeable(absent as never, { memory_refs: {}, fixture_files: 3 }) ?? '',
    /also scanned 3 fixture file\(s\) beside the store/,
  );
  assert.equal(whyNotRejudgeable(absent as never, { memory_refs: {}, fixture_files: 0 }), null);
  assert.equal(whyNotRejudgeable(absent as never, { memory_refs: {} }), null);
});
