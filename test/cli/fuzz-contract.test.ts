import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkCase, handCase, localDecl } from '../fuzz-helpers.ts';
import { targetSchema } from '../../src/targets/schema.ts';
import type { Finding } from '../../src/fuzz/checks.ts';

const claimFindings = (fs: Finding[]) => fs.filter((f) => f.check === 'broken-claim');
// itemised, so a result holding the token is told from an echo of the query
const itemised = (d: ReturnType<typeof localDecl>) =>
  targetSchema.parse({ ...d, recall_results: { regex: '^#\\d+ .+$', empty: { text: 'no results' } } });

test('a declared forget must forget without a forget claim: what it left live and recalled is flagged', async (t) => {
  const c = handCase('t', (b) => {
    const ref = b.remember('Token mmvcontract1');
    b.forget(ref);
    b.expect({
      kind: 'not-recalled',
      claim: 'forget',
      op: 'forget',
      text: 'mmvcontract1',
      step: b.recall('mmvcontract1'),
    });
    b.expect({ kind: 'not-live', claim: 'forget', op: 'forget', text: 'mmvcontract1' });
  });
  const fs = claimFindings(await checkCase(t, itemised(localDecl('clingy', 'forget-nothing')), c));
  assert.equal(fs.length, 2, JSON.stringify(fs));
  for (const f of fs) assert.match(f.reason, /declares forget \(which must forget, claim or not\)/);
  assert.deepEqual(
    claimFindings(await checkCase(t, itemised(localDecl('forgetful', '')), c)),
    [],
    'a real delete passes without a claim',
  );
});

test('a declared update must replace without a claim: an old version left live is flagged', async (t) => {
  const c = handCase('t', (b) => {
    const ref = b.remember('Token mmvcontract2 old');
    b.update(ref, 'Token mmvcontract3 new');
    b.expect({ kind: 'not-live', claim: 'supersede', op: 'update', text: 'mmvcontract2' });
  });
  const fs = claimFindings(await checkCase(t, localDecl('appender', 'update-appends', { update: true }), c));
  assert.equal(fs.length, 1, JSON.stringify(fs));
  assert.match(
    fs[0].reason,
    /declares update \(which must replace, claim or not\), but "mmvcontract2" is still a live memory/,
  );
  assert.deepEqual(
    claimFindings(await checkCase(t, localDecl('replacer', '', { update: true }), c)),
    [],
    'an update that replaces passes',
  );
});

test('a forget expectation in a case that never forgets judges nothing: a kept memory is no broken forget', async (t) => {
  const c = handCase('t', (b) => {
    b.remember('Token mmvcontract4');
    b.expect({ kind: 'not-live', claim: 'forget', op: 'forget', text: 'mmvcontract4' });
  });
  assert.deepEqual(claimFindings(await checkCase(t, localDecl('forgetful', '', { claims: ['forget'] }), c)), []);
});
