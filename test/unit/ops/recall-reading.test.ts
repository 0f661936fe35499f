/**
 * How a recall answer is read, by the scenario judges and the fuzzer alike (ops/recall.ts): a JSON
 * answer that says the recall failed is unreadable, not "no results"; without an itemisation, an
 * echo of the query cannot be told from a result, in either direction.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { assertionSchema, type Assertion } from '../../../src/scenario/schema.ts';
import { targetSchema, type TargetDecl } from '../../../src/targets/schema.ts';
import { itemiseRecall, readRecall, recallFinds, type RecallResult } from '../../../src/ops/recall.ts';
import { judgeOne } from '../../../src/judge/registry.ts';
import { probeResult } from '../../../src/judge/probes.ts';
import type { JudgeContext } from '../../../src/judge/context.ts';
import { openJudgeModel, type JudgeModel } from '../../../src/judge/llm/client.ts';
import { resolveJudgeConfig } from '../../../src/judge/llm/config.ts';

const decl = (recall_results?: Record<string, unknown>): TargetDecl =>
  targetSchema.parse({
    name: 't',
    description: 'd',
    server: { command: 'x' },
    store: { format: 'jsonl', path: '{{data}}/s.jsonl' },
    views: { memories: 'SELECT 1' },
    ops: {},
    ...(recall_results ? { recall_results } : {}),
  });

const JSON_RESULTS = decl({ json: 'results' });

test('a JSON recall answer that says it failed is unreadable, with or without a declaration; one that succeeded is not', () => {
  const failed: [string, RegExp][] = [
    ['{"success":false,"results":[]}', /"success": false/],
    ['{"ok":false,"results":[]}', /"ok": false/],
    ['{"isError":true,"results":[]}', /"isError": true/],
    ['{"status":"error","results":[]}', /"status": "error"/],
    ['{"error":"database is locked","results":[]}', /"error": "database is locked"/],
    ['{"error":{"code":5},"results":[]}', /"error": \{"code":5\}/],
    // one call of a two-call op failed: its part of the answer is missing
    ['{"results":["a"]}\n{"success":false,"results":[]}', /"success": false/],
  ];
  for (const [text, why] of failed) {
    for (const d of [
      JSON_RESULTS,
      decl({ regex: '^• .+$', empty: { text: '{"success":false,"results":[]}' } }),
      decl(),
    ]) {
      const r = itemiseRecall(d, text, 'q');
      assert.match(String(r.unreadable), /its answer says the recall failed/, `${text}: ${r.unreadable}`);
      assert.match(String(r.unreadable), why);
      assert.deepEqual(r.items, []);
    }
  }
  for (const text of [
    '{"success":true,"results":[]}',
    '{"ok":true,"error":null,"results":[]}',
    '{"error":"","results":[]}',
    '{"error":{},"results":[]}',
  ])
    assert.equal(itemiseRecall(JSON_RESULTS, text, 'q').unreadable, undefined, text);
  assert.deepEqual(itemiseRecall(JSON_RESULTS, '{"success":true,"results":["x"]}', 'q').items, ['x']);
  // a refused call reads as refused whatever its text
  assert.match(String(readRecall(JSON_RESULTS, false, '{"results":[]}', 'q').unreadable), /refused/);
});

test('recallFinds: one rule for a hit, a miss and what cannot be told', () => {
  const plain = decl();
  const echo = itemiseRecall(plain, 'No results found for: "mmvtoken12"', 'mmvtoken12');
  assert.match(
    (recallFinds(echo, 'mmvtoken12', 'mmvtoken12') as { cannotTell: string }).cannotTell,
    /part of the query, so an echo of the query cannot be told from a result/,
  );
  assert.deepEqual(recallFinds(itemiseRecall(plain, 'no results'), 'mmvtoken12', 'mmvtoken12'), { found: false });
  assert.deepEqual(recallFinds(itemiseRecall(plain, '#1 Fact MMVTOKEN12'), 'fact', 'mmvtoken12'), { found: true });
  const failed = itemiseRecall(JSON_RESULTS, '{"success":false,"results":[]}', 'q');
  assert.ok('cannotTell' in recallFinds(failed, 'q', 'x'));
});

let model: JudgeModel;
before(async () => {
  model = await openJudgeModel(resolveJudgeConfig({ judgeModel: 'scripted' })!);
});
after(async () => {
  await model.close();
});

const A = (x: Record<string, unknown>): Assertion =>
  assertionSchema.parse({ kind: 'recall', name: 'j', phase: 'both', query: 'pnpm', ...x });
const ctx = (r: RecallResult): JudgeContext => ({
  evidence: { db: undefined as never, dir: '/nonexistent', storeFiles: [], viewSql: {}, close() {} },
  judgeModel: model,
  recall: async () => r,
});

test('recall judge: a failed JSON answer is error for contains and not_contains, never "no results"', async () => {
  const r = itemiseRecall(JSON_RESULTS, '{"success":false,"results":[]}', 'pnpm');
  for (const a of [A({ not_contains: 'pnpm' }), A({ contains: 'pnpm' })]) {
    const j = await judgeOne(a, ctx(r));
    assert.equal(j.outcome, 'error', j.detail);
    assert.match(
      j.detail,
      /recall "pnpm" cannot be read as results: its answer says the recall failed \("success": false\)/,
    );
  }
});

test('recall judge without an itemisation: an echo of the query is neither found nor clearly absent', async () => {
  const echo = itemiseRecall(decl(), 'No results found for: pnpm', 'pnpm');
  for (const a of [A({ not_contains: 'pnpm' }), A({ contains: 'pnpm' })]) {
    const j = await judgeOne(a, ctx(echo));
    assert.equal(j.outcome, 'error', `${JSON.stringify(a)}: ${j.detail}`);
    assert.match(j.detail, /declare recall_results/);
  }
  // an answer without the text at all is a clear answer either way
  const none = itemiseRecall(decl(), 'no results', 'pnpm');
  assert.equal((await judgeOne(A({ not_contains: 'pnpm' }), ctx(none))).outcome, 'pass');
  assert.equal((await judgeOne(A({ contains: 'pnpm' }), ctx(none))).outcome, 'fail');
});

test('a stored probe from before the rule (a failed JSON answer kept as "no results") is read by today\'s rule', () => {
  const stored = {
    query: 'pnpm',
    result_text: '{"success":false,"results":[]}',
    items: [],
    itemised: true,
    is_error: false,
    unreadable: null,
    ms: 1,
    ts: '',
  };
  assert.match(String(probeResult(stored).unreadable), /its answer says the recall failed \("success": false\)/);
  const ok = { ...stored, result_text: '{"success":true,"results":["x"]}', items: [{ rank: 1, content: 'x' }] };
  assert.deepEqual(probeResult(ok), { text: ok.result_text, items: ['x'], itemised: true });
});
