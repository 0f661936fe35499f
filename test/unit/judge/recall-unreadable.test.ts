/**
 * A recall that cannot be read is not an empty recall: every judge over a recall (recall, rank,
 * an llm judge of recall results) says `error` where the target refused, errored or answered in
 * none of its declared forms, and "no results" only for its declared "found nothing".
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { assertionSchema, type Assertion } from '../../../src/scenario/schema.ts';
import { targetSchema, type TargetDecl } from '../../../src/targets/schema.ts';
import { checkOps } from '../../../src/targets/op-checks.ts';
import { itemiseRecall, refusedRecall, type RecallResult } from '../../../src/ops/recall.ts';
import { judgeOne } from '../../../src/judge/registry.ts';
import type { JudgeContext } from '../../../src/judge/context.ts';
import { openJudgeModel, type JudgeModel } from '../../../src/judge/llm/client.ts';
import { resolveJudgeConfig } from '../../../src/judge/llm/config.ts';

const decl = (recall_results: Record<string, unknown>): TargetDecl =>
  targetSchema.parse({
    name: 't',
    description: 'd',
    server: { command: 'x' },
    store: { format: 'jsonl', path: '{{data}}/s.jsonl' },
    views: { memories: 'SELECT 1' },
    ops: {},
    recall_results,
  });

const BULLETS = { regex: '^• .+$' };
const SECRET = 'User deploy token is tok-4f9a2b7c1e';

test('itemising: zero items is "no results" only for an empty text, an empty declared JSON array or the declared empty form', () => {
  const json = decl({ json: 'entities' });
  assert.equal(itemiseRecall(json, '{"entities":[],"relations":[]}').unreadable, undefined);
  assert.equal(itemiseRecall(json, '').unreadable, undefined);
  assert.match(
    String(itemiseRecall(json, `{"nodes":[${JSON.stringify(SECRET)}]}`).unreadable),
    /no result \(a JSON document with an array at "entities"\)/,
  );
  assert.match(String(itemiseRecall(json, `Found: ${SECRET}`).unreadable), /declares none: recall_results\.empty/);
  assert.deepEqual(itemiseRecall(json, `{"entities":[${JSON.stringify(SECRET)}]}`).items, [SECRET]);

  const bullets = decl(BULLETS);
  assert.equal(itemiseRecall(bullets, '  \n').unreadable, undefined);
  assert.ok(
    itemiseRecall(bullets, `Found 1:\n- ${SECRET}`).unreadable,
    'a drifted listing holding the memory is unreadable',
  );
  assert.ok(
    itemiseRecall(bullets, 'No results found for: "pnpm"', 'pnpm').unreadable,
    'an undeclared "none" is unreadable',
  );

  const text = decl({ ...BULLETS, empty: { text: 'No results found for: "{{query}}"' } });
  assert.equal(itemiseRecall(text, 'No results found for: "pnpm"\n', 'pnpm').unreadable, undefined);
  assert.ok(
    itemiseRecall(text, 'No results found for: "npm"', 'pnpm').unreadable,
    'the echo of another query is not this one\'s "none"',
  );
  assert.ok(
    itemiseRecall(text, `No results found for: "pnpm"\n- ${SECRET}`, 'pnpm').unreadable,
    'the whole text must be the empty form',
  );

  const re = decl({
    ...BULLETS,
    empty: { regex: 'No memories found matching "{{query}}"\\.(?:\\n\\n_Search mode: [^\\n]*_)?' },
  });
  assert.equal(
    itemiseRecall(re, 'No memories found matching "a.b (c)".\n\n_Search mode: fulltext_', 'a.b (c)').unreadable,
    undefined,
    'the query is matched literally',
  );
  assert.ok(itemiseRecall(re, 'No memories found matching "aXb (c)".', 'a.b (c)').unreadable);
  assert.ok(itemiseRecall(re, `No memories found matching "x".\n${SECRET}`, 'x').unreadable);
});

test('recall_results.empty: exactly one of text or regex, and a regex that compiles (load time)', () => {
  assert.throws(() => decl({ ...BULLETS, empty: {} }), /exactly one of `text` or `regex`/);
  assert.throws(() => decl({ ...BULLETS, empty: { text: 'a', regex: 'b' } }), /exactly one of `text` or `regex`/);
  assert.deepEqual(checkOps(decl({ ...BULLETS, empty: { regex: 'none for {{query}}' } })), []);
  assert.match(checkOps(decl({ ...BULLETS, empty: { regex: 'none (' } })).join('\n'), /recall_results\.empty\.regex: /);
});

let model: JudgeModel;
before(async () => {
  model = await openJudgeModel(resolveJudgeConfig({ judgeModel: 'scripted' })!);
});
after(async () => {
  await model.close();
});

const A = (x: Record<string, unknown>): Assertion =>
  assertionSchema.parse({ name: 'j', phase: 'both', query: 'deploy token', ...x });

function ctx(r: RecallResult): JudgeContext {
  return {
    evidence: { db: undefined as never, dir: '/nonexistent', storeFiles: [], viewSql: {}, close() {} },
    judgeModel: model,
    recall: async () => r,
    memory: (ref) => (ref === 'tok' ? { id: '', content: SECRET } : undefined),
  };
}

test('recall not_contains, rank max_results / absent and an llm judge of recall results are error over a refused or unreadable recall, naming the query and what came back', async () => {
  const long = `index locked; last hits: ${SECRET}${' and more'.repeat(40)}`;
  const cases: [string, RecallResult][] = [
    ['refused', refusedRecall(long)],
    ['drifted', itemiseRecall(decl(BULLETS), long)],
  ];
  const assertions = [
    A({ kind: 'recall', not_contains: 'tok-4f9a2b7c1e' }),
    A({ kind: 'rank', max_results: 0 }),
    A({ kind: 'rank', memory: '$ref:tok', top_k: 1, absent: true }),
    A({
      kind: 'llm',
      check: 'rubric',
      subject: 'recall',
      criteria: 'no result names a deploy token',
      scripted: { verdict: 'pass' },
    }),
  ];
  for (const [name, r] of cases) {
    for (const a of assertions) {
      const j = await judgeOne(a, ctx(r));
      assert.equal(j.outcome, 'error', `${name} ${a.kind}: ${j.detail}`);
      assert.match(j.detail, /recall "deploy token" cannot be read as results: /, `${name} ${a.kind}`);
      assert.ok(
        j.detail.includes(JSON.stringify(long.slice(0, 200)) + '…'),
        `${name} ${a.kind}: the first 200 characters: ${j.detail}`,
      );
      assert.ok(!j.detail.includes(long.slice(0, 201)), `${name} ${a.kind}: no more than 200`);
    }
  }
  // the same judges over a declared "none" are no results
  const none = itemiseRecall(decl({ ...BULLETS, empty: { text: 'nothing' } }), 'nothing', 'deploy token');
  for (const a of assertions) assert.equal((await judgeOne(a, ctx(none))).outcome, 'pass', a.kind);
});
