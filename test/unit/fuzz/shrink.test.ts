import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CaseBuilder, fingerprint, leafSteps, type FuzzCase } from '../../../src/fuzz/case.ts';
import { caseSize, shrinkSignature, withoutSteps } from '../../../src/fuzz/shrink.ts';

function built(fill: (b: CaseBuilder) => void): FuzzCase {
  const b = new CaseBuilder();
  fill(b);
  return {
    recipe: 't',
    ingredients: [],
    fingerprint: fingerprint('t', []),
    steps: b.steps,
    expects: b.expects,
    files: [],
    needs: [],
  };
}

test('dropping a step drops what depended on it: the forget of its memory, expectations about its text or its recall', () => {
  const c = built((b) => {
    const ref = b.remember('mmvaaaa: first');
    b.remember('mmvbbbb: second');
    b.forget(ref);
    b.expect({ kind: 'not-live', claim: 'forget', op: 'forget', text: 'mmvaaaa' });
    b.expect({ kind: 'recalled', claim: 'recall', text: 'mmvbbbb', step: b.recall('mmvbbbb') });
  });
  const noFirst = withoutSteps(c, new Set([0]));
  assert.deepEqual(
    leafSteps(noFirst.steps).map((s) => s.op),
    ['remember', 'recall'],
    'the forget of a memory never stored goes with it',
  );
  assert.deepEqual(
    noFirst.expects.map((e) => e.kind),
    ['recalled'],
    'no expectation about a text nothing writes',
  );
  const noRecall = withoutSteps(c, new Set([3]));
  assert.deepEqual(
    noRecall.expects.map((e) => e.kind),
    ['not-live'],
    'no expectation about a recall step that is gone',
  );
});

test('fewer concurrent calls: a parallel group loses steps, and goes when it has none', () => {
  const c = built((b) => {
    b.parallel(() => {
      b.remember('mmv1111: a');
      b.remember('mmv2222: b');
    });
    b.expect({ kind: 'recalled', claim: 'recall', text: 'mmv1111', step: b.recall('mmv1111') });
  });
  assert.deepEqual(caseSize(c), { steps: 3, concurrent: 2, chars: 20 });
  const one = withoutSteps(c, new Set([2]));
  assert.equal(caseSize(one).concurrent, 1);
  const none = withoutSteps(c, new Set([1, 2]));
  assert.deepEqual(
    none.steps.map((s) => s.op),
    ['recall'],
  );
});

test('the flag a shrink keeps leaves out latency and network, which no step makes', () => {
  const f = (check: string, claim?: string) => ({ check, claim, reason: '', calls: [] }) as never;
  assert.equal(shrinkSignature([f('recall-miss', 'recall'), f('latency'), f('network')]), 'recall-miss:recall');
  assert.equal(shrinkSignature([f('latency')]), '');
});

test('dropping the forget (or the update) drops the expectations about it: a kept memory is no broken forget', () => {
  const c = built((b) => {
    const ref = b.remember('mmvcccc: kept');
    b.update(ref, 'mmvdddd: newer');
    b.forget(ref);
    b.expect({ kind: 'absent', claim: 'forget', op: 'forget', text: 'mmvdddd' });
    b.expect({ kind: 'not-live', claim: 'supersede', op: 'update', text: 'mmvcccc' });
  });
  assert.deepEqual(
    withoutSteps(c, new Set([2])).expects.map((e) => e.claim),
    ['supersede'],
  );
  assert.deepEqual(withoutSteps(c, new Set([1])).expects, [], 'the update is gone, and the text it wrote');
});
