/**
 * Attack: a value that is not one. `compare` falls back to comparing text when the expected value
 * is a number and the actual is not, so an SQL aggregate over no rows (NULL, compared as the text
 * "null") or a text column compared with a number decides a verdict: `SELECT min(length(content))
 * FROM memories WHERE content LIKE '%jest%'` `gt 5` passes a store that holds no such memory
 * ("null" > "5" as text). Seen end to end: `memeval run` over a scenario with that query says
 * `pass` and exits 0 against a server that stored only "User prefers vitest".
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { assertionSchema, type Assertion } from '../../../src/scenario/schema.ts';
import { judgeSql } from '../../../src/judge/kinds/sql.ts';
import { judgeText } from '../../../src/judge/text-checks.ts';
import type { JudgeContext } from '../../../src/judge/context.ts';
import type { Evidence } from '../../../src/evidence/open.ts';

const sql = (query: string, op: string, value: number | string) =>
  assertionSchema.parse({ kind: 'sql', name: 'q', phase: 'both', query, op, value }) as Extract<
    Assertion,
    { kind: 'sql' }
  >;

function ctx(): JudgeContext {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE memories (id TEXT, content TEXT, is_deleted INTEGER)');
  db.prepare('INSERT INTO memories VALUES (?, ?, 0)').run('m1', 'User prefers vitest');
  return { evidence: { db } as unknown as Evidence };
}

test('an sql query whose value is NULL (an aggregate over no row) decides nothing: error, never pass', () => {
  const j = judgeSql(sql("SELECT min(length(content)) FROM memories WHERE content LIKE '%jest%'", 'gt', 5), ctx());
  assert.equal(j.outcome, 'error', `NULL compared as the text "null" decided ${j.outcome}: ${j.observed}`);
});

test('an sql query whose NULL is compared with ne decides nothing either', () => {
  const j = judgeSql(sql("SELECT max(id) FROM memories WHERE content LIKE '%token%'", 'ne', 'm1'), ctx());
  assert.equal(j.outcome, 'error', `NULL compared as "null" decided ${j.outcome}`);
});

test('an sql query returning text compared with a number (a wrong column) is error, not a text comparison', () => {
  // the author meant length(content); the text "User prefers vitest" > "5" as text
  const j = judgeSql(sql('SELECT content FROM memories', 'gt', 5), ctx());
  assert.equal(j.outcome, 'error', `text compared with a number decided ${j.outcome}`);
});

test('a command JSON check over null, compared with a number, cannot be judged', () => {
  const v = judgeText(
    '{"summary":{"failed":null}}',
    { json: { path: '$.summary.failed', op: 'lt', value: 1 } },
    'stdout',
  );
  // "null" < "1" is false as text: a fail, which in a violation phase reads as the problem found
  assert.ok('unjudgeable' in v, `null compared with 1 as text judged: ${JSON.stringify(v)}`);
});
