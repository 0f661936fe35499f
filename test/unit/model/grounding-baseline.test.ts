import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groundingVerdict, unsupportedTokens } from '../../../src/model/grounding-baseline.ts';
import { QUOTED_RESULT_CHARS } from '../../../src/model/policy.ts';
import { fence } from '../../../src/util/data-fence.ts';

const POOL =
  'Database connections go through pgbouncer in transaction mode; the connection pool size is 20 per service instance.';
const ID = '0123456789abcdef';
const grounded = (answer: string, recalled: string) =>
  groundingVerdict(
    [
      fence(ID, 'prompts', 'What is the pool size?'),
      fence(ID, 'recalled', recalled),
      fence(ID, 'subject', answer),
    ].join('\n'),
  );

test('lexical baseline: a final number or version must match a recalled one whole, not be the start of one', () => {
  assert.deepEqual(unsupportedTokens('The pool size is 2', POOL), ['2']);
  assert.equal(grounded('The connection pool size is 2', POOL)?.verdict, 'fail');
  assert.deepEqual(unsupportedTokens('The API is built with Go 1.2', 'The API is built with Go 1.22.'), ['1.2']);
  assert.deepEqual(unsupportedTokens('Clients call v2', 'Clients call version v21 of the API.'), ['v2']);
  // the whole figure, and a word cut at the end of a quote, are still supported
  assert.equal(grounded('The connection pool size is 20', POOL)?.verdict, 'pass');
  assert.deepEqual(unsupportedTokens('Done. Database connections go through pgbou', POOL), []);
});

test('lexical baseline: a quote cut at the scripted agent quote limit may end in part of a recalled figure', () => {
  const long = `${'x'.repeat(QUOTED_RESULT_CHARS)} ${POOL}`;
  const quoted = `Done. ${long.slice(0, long.indexOf(' 20 ') + 2)}`;
  assert.ok(quoted.length > QUOTED_RESULT_CHARS && quoted.endsWith(' 2'));
  assert.deepEqual(unsupportedTokens(quoted, long), []);
});
