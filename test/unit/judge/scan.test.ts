import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formsOf } from '../../../src/judge/scan.ts';

test('the forms a secret is searched in: UTF-8, latin1, JSON escapes (Python, Go, escaped slashes, twice)', () => {
  const forms = formsOf('a"é/<b>').map((f) => `${f.encoding}=${f.bytes.toString('utf8')}`);
  for (const want of [
    'utf-8=a"é/<b>',
    'json-escaped=a\\"é/<b>',
    'json-escaped=a\\"\\u00e9/<b>',
    'json-escaped=a\\"\\u00E9/<b>',
    'json-escaped=a\\"é/\\u003cb\\u003e',
    'json-escaped=a\\"é\\/<b>',
    'json-escaped twice=a\\\\\\"é/<b>',
  ])
    assert.ok(forms.includes(want), `${want} in ${forms.join(' | ')}`);
  assert.ok(formsOf('a"é').some((f) => f.encoding === 'latin1'));
  assert.equal(formsOf('tok_live_plain').length, 1, 'a plain token is searched once');
});
