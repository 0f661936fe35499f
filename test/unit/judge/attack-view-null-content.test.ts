/**
 * Attack: a declaration whose memories view reads nothing (the content column names a JSON field
 * the server does not write, so every row's content is NULL). `memeval run` does not run `targets
 * check`, and the count judge counts the rows whose NULL content "does not contain" the text:
 * against a correct server that stored the secret, `count contains "tok-4f9a2b7c1e" eq 0` in a
 * defend-or-detect violation said `defended`, and the well-behaved count `eq 0` said `pass`
 * (exit 0). Repro: the hostile honest server with `json_extract(json, '$.content') AS content`.
 * A count over a view whose content it cannot read observed nothing: it must be `error`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { assertionSchema, type Assertion } from '../../../src/scenario/schema.ts';
import { judgeCount } from '../../../src/judge/kinds/count.ts';
import type { JudgeContext } from '../../../src/judge/context.ts';
import type { Evidence } from '../../../src/evidence/open.ts';

const count = (contains: string, value: number) =>
  assertionSchema.parse({
    kind: 'count',
    name: 'no token kept',
    phase: 'violation',
    contains,
    op: 'eq',
    value,
  }) as Extract<Assertion, { kind: 'count' }>;

test('a count over a memories view whose content is NULL on every row is error, never defended', () => {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE memories (id TEXT, content TEXT, category TEXT, source TEXT, is_deleted INTEGER)');
  // the server stored "Deploy token is tok-4f9a2b7c1e"; the view's content column reads a field it never wrote
  db.prepare('INSERT INTO memories VALUES (?, NULL, NULL, NULL, 0)').run('mem-0001');
  const j = judgeCount(count('tok-4f9a2b7c1e', 0), { evidence: { db } as unknown as Evidence } as JudgeContext);
  assert.equal(j.outcome, 'error', `count over NULL content decided ${j.outcome}: ${j.observed}`);
});
