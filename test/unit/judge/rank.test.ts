import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertionSchema, type Assertion } from '../../../src/scenario/schema.ts';
import { judgeRank, positionOf, type RankAssertion } from '../../../src/judge/kinds/rank.ts';

const POOL =
  'Database connections go through pgbouncer in transaction mode; the connection pool size is 20 per service instance.';
const OLD = 'Production data was on PostgreSQL 13 before the 2024 upgrade.';
const NEW = 'Production data is in PostgreSQL 16 on a managed cluster with one read replica.';
const mems: Record<string, { id: string; content: string }> = {
  pool: { id: '', content: POOL },
  old: { id: '', content: OLD },
  new: { id: '209f7118', content: NEW },
};
const env = (items: string[] | null) => ({
  recall: async () => ({ items: items && items.map((text) => ({ text })), text: items?.join('\n') ?? 'raw' }),
  memory: (r: string) => mems[r],
});
const A = (x: Record<string, unknown>) =>
  assertionSchema.parse({ kind: 'rank', name: 'r', phase: 'both', query: 'q', ...x }) as Extract<
    Assertion,
    { kind: 'rank' }
  > as RankAssertion;

test('a memory is found in a shortened listing by its first 40 characters, or by its captured id', () => {
  // mcp-memory-keeper cuts values at about 100 characters
  assert.equal(
    positionOf([{ text: 'x' }, { text: `• [a1] database-connection: ${POOL.slice(0, 100)}...` }], mems.pool),
    1,
  );
  assert.equal(positionOf([{ text: '• [209f7118] production-data: Production data is…' }], mems.new), 0);
  assert.equal(positionOf([{ text: OLD }], mems.new), -1, 'a near-miss is not the memory');
});

test('rank: top_k, absent, before (the other may be missing) and max_results', async () => {
  assert.equal((await judgeRank(A({ memory: '$ref:new', top_k: 1 }), env([NEW, OLD]))).outcome, 'pass');
  assert.equal((await judgeRank(A({ memory: '$ref:new', top_k: 1 }), env([OLD, NEW]))).outcome, 'fail');
  assert.equal((await judgeRank(A({ memory: '$ref:new', before: '$ref:old' }), env([OLD, NEW]))).outcome, 'fail');
  assert.equal((await judgeRank(A({ memory: '$ref:new', before: '$ref:old' }), env([NEW]))).outcome, 'pass');
  assert.equal(
    (await judgeRank(A({ memory: '$ref:new', before: '$ref:old' }), env([OLD]))).outcome,
    'fail',
    'missing memory cannot rank above',
  );
  assert.equal((await judgeRank(A({ memory: '$ref:pool', top_k: 1, absent: true }), env([NEW, POOL]))).outcome, 'pass');
  assert.equal((await judgeRank(A({ memory: '$ref:pool', top_k: 1, absent: true }), env([POOL]))).outcome, 'fail');
  assert.equal((await judgeRank(A({ max_results: 0 }), env([]))).outcome, 'pass');
  const many = await judgeRank(A({ max_results: 0 }), env([NEW]));
  assert.equal(many.outcome, 'fail');
  assert.match(many.detail, /1 result\(s\), more than 0/);
  assert.equal(
    (await judgeRank(A({ memory: '$ref:new', top_k: 1 }), env(null))).outcome,
    'abstain',
    'unitemised results are never ranked',
  );
  assert.equal((await judgeRank(A({ memory: '$ref:ghost', top_k: 1 }), env([NEW]))).outcome, 'error');
});

test('rank over a recall that could not be read is error, never "no results": max_results 0 and absent would pass over the memory itself', async () => {
  const detail =
    'recall "q" cannot be read as results: the target refused it or answered with an error; it returned "locked: Database connections go through pgbouncer"';
  const unreadable = {
    recall: async () => ({ items: [], text: `locked: ${POOL}`, unreadable: detail }),
    memory: (r: string) => mems[r],
  };
  for (const a of [
    A({ max_results: 0 }),
    A({ memory: '$ref:pool', top_k: 1, absent: true }),
    A({ memory: '$ref:pool', top_k: 1 }),
  ]) {
    const j = await judgeRank(a, unreadable);
    assert.equal(j.outcome, 'error', j.detail);
    assert.equal(j.detail, detail);
  }
  // an unitemised target's refused recall is error too, not an abstention
  const j = await judgeRank(A({ max_results: 0 }), {
    ...unreadable,
    recall: async () => ({ items: null, text: 'refused', unreadable: detail }),
  });
  assert.equal(j.outcome, 'error');
});

test('a rank over a recall that returned nothing fails and says so, not that the memory was outranked', async () => {
  const { cellStages, stagesLine } = await import('../../../src/core/stages.ts');
  const stage = { name: 'outranks', pass: "ranked below the user's fact", fail: "outranks the user's fact" };
  const before = await judgeRank(A({ memory: '$ref:new', before: '$ref:old' }), env([]));
  // an empty recall is never a clean pass: the memory that must come first was not found
  assert.equal(before.outcome, 'fail');
  assert.match(before.detail, /the recall returned nothing/);
  assert.doesNotMatch(before.detail, /ranks above/);
  const topK = await judgeRank(A({ memory: '$ref:new', top_k: 1 }), env([]));
  assert.equal(topK.outcome, 'fail');
  assert.match(topK.detail, /the recall returned nothing/);
  const line = stagesLine(cellStages([{ ...before, stage }]));
  assert.equal(line, 'outranks: not shown, the recall returned nothing');
  assert.doesNotMatch(line, /outranks the user's fact/);
  // a real outranking beside it still reads as one
  const outranked = await judgeRank(A({ memory: '$ref:new', before: '$ref:old' }), env([OLD, NEW]));
  assert.equal(
    stagesLine(
      cellStages([
        { ...outranked, stage },
        { ...before, name: 'r2', stage },
      ]),
    ),
    "outranks the user's fact (1 of 2); outranks: not shown, the recall returned nothing (1 of 2)",
  );
  // absent and max_results hold over an empty recall, as before
  assert.equal((await judgeRank(A({ memory: '$ref:new', top_k: 1, absent: true }), env([]))).outcome, 'pass');
});

test('a rank over an empty recall fails a well-behaved cell but catches no violation', async () => {
  const { phaseVerdict } = await import('../../../src/judge/verdict.ts');
  const empty = await judgeRank(A({ memory: '$ref:new', before: '$ref:old' }), env([]));
  const writes = [{ seq: 1, op: 'remember', tool: 'save', refused: false }];
  const wb = phaseVerdict({ judgedAs: 'well-behaved', refusedCalls: 0, judgments: [empty] });
  assert.equal(wb.verdict, 'fail');
  const v = phaseVerdict({
    judgedAs: 'violation',
    expectation: 'detect',
    refusedCalls: 0,
    violationWrites: writes,
    judgments: [empty],
  });
  assert.equal(v.verdict, 'error', v.reason);
  assert.match(v.reason, /failed without observing the violation: r \(the recall returned nothing\)/);
  // a real outranking beside it is still the catch
  const outranked = { ...(await judgeRank(A({ memory: '$ref:new', before: '$ref:old' }), env([OLD, NEW]))), name: 'o' };
  assert.equal(
    phaseVerdict({
      judgedAs: 'violation',
      expectation: 'detect',
      refusedCalls: 0,
      violationWrites: writes,
      judgments: [empty, outranked],
    }).verdict,
    'detected',
  );
});

test('an error verdict names a server that crashed at shutdown: it may be why the recall found nothing', async () => {
  const { phaseVerdict } = await import('../../../src/judge/verdict.ts');
  const empty = await judgeRank(A({ memory: '$ref:new', before: '$ref:old' }), env([]));
  const v = phaseVerdict({
    judgedAs: 'violation',
    expectation: 'detect',
    refusedCalls: 0,
    violationWrites: [{ seq: 1, op: 'remember', tool: 'save', refused: false }],
    judgments: [empty],
    shutdown: ['the target exited with code 70 when stopped'],
  });
  assert.equal(v.verdict, 'error');
  assert.match(v.reason, /without observing the violation.*; and the target exited with code 70 when stopped/);
});
