/**
 * Recall probes kept in the evidence: each distinct query is asked once and stored, every judge
 * over a recall reads the stored probe, and a probe that errored, is unreadable or is missing
 * (evidence from before the table, or a query never probed) makes the judges `error`, never pass.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { assertionSchema, type Assertion } from '../../../src/scenario/schema.ts';
import type { ProbedRecall } from '../../../src/ops/ops.ts';
import { probeQueries } from '../../../src/scenario/kinds.ts';
import { runRecallProbes } from '../../../src/cell/probes.ts';
import {
  createRecallProbesTable,
  readRecallProbes,
  writeRecallProbes,
  type RecallProbeRecord,
} from '../../../src/evidence/recall-probes.ts';
import { storedRecall } from '../../../src/judge/probes.ts';
import { judgeOne } from '../../../src/judge/registry.ts';
import type { JudgeContext } from '../../../src/judge/context.ts';
import type { Evidence } from '../../../src/evidence/open.ts';
import { openJudgeModel, type JudgeModel } from '../../../src/judge/llm/client.ts';
import { resolveJudgeConfig } from '../../../src/judge/llm/config.ts';
import { tempDir } from '../../helpers.ts';

const A = (x: Record<string, unknown>): Assertion => assertionSchema.parse({ name: 'j', phase: 'both', ...x });

test('probeQueries: the distinct queries of recall, rank and llm-on-recall judges, in a jury too, in first-named order', () => {
  const qs = probeQueries([
    A({ kind: 'rank', query: 'Spring Boot', max_results: 3 }),
    A({ kind: 'sql', query: 'SELECT 1', op: 'eq', value: 1 }),
    A({ kind: 'recall', query: 'node pool', contains: 'pool' }),
    A({ kind: 'llm', check: 'relevance', subject: 'recall', query: 'Spring Boot' }),
    A({ kind: 'llm', check: 'rubric', subject: 'memories', criteria: 'x' }),
    A({
      kind: 'jury',
      rule: 'majority',
      judges: [
        A({ kind: 'recall', query: 'staging', contains: 'x' }),
        A({ kind: 'recall', query: 'node pool', contains: 'y' }),
      ],
    }),
  ]);
  assert.deepEqual(qs, ['Spring Boot', 'node pool', 'staging']);
});

test('runRecallProbes asks each query once and keeps a refused or failed probe as an error with why', async () => {
  const asked: string[] = [];
  const recall = async (q: string): Promise<ProbedRecall> => {
    asked.push(q);
    if (q === 'refused')
      return { text: 'denied', items: [], itemised: true, unreadable: 'the target refused it', is_error: true, ms: 1 };
    if (q === 'crash') throw new Error('server exited (code 1)');
    return { text: '["a","b"]', items: ['a', 'b'], itemised: true, is_error: false, ms: 2.5 };
  };
  const probes = await runRecallProbes(['ok', 'refused', 'crash'], recall);
  assert.deepEqual(asked, ['ok', 'refused', 'crash']);
  assert.deepEqual(
    probes.map((p) => [p.query, p.items, p.is_error, p.unreadable]),
    [
      [
        'ok',
        [
          { rank: 1, content: 'a' },
          { rank: 2, content: 'b' },
        ],
        false,
        null,
      ],
      ['refused', [], true, 'the target refused it'],
      ['crash', [], true, 'the probe failed: server exited (code 1)'],
    ],
  );
});

let model: JudgeModel;
before(async () => {
  model = await openJudgeModel(resolveJudgeConfig({ judgeModel: 'scripted' })!);
});
after(async () => {
  await model.close();
});

const probe = (query: string, over: Partial<RecallProbeRecord> = {}): RecallProbeRecord => ({
  query,
  result_text: '',
  items: [],
  itemised: true,
  is_error: false,
  unreadable: null,
  ms: 1,
  ts: '2026-01-01T00:00:00.000Z',
  ...over,
});

function evidenceWith(dir: string, probes: RecallProbeRecord[] | null, raw?: string): Evidence {
  const db = new Database(join(dir, 'evidence.db'));
  if (probes) {
    createRecallProbesTable(db);
    writeRecallProbes(db, probes);
  }
  if (raw) db.exec(raw);
  return { db, dir, storeFiles: [], viewSql: {}, close: () => db.close() };
}

const ctxOf = (evidence: Evidence): JudgeContext => ({
  evidence,
  judgeModel: model,
  recall: storedRecall(evidence),
  memory: (ref) => (ref === 'pool' ? { id: '', content: 'The pool size is 20' } : undefined),
});

test('judges read the stored probe: a readable one is judged, one for all the assertions over its query', (t) => {
  const dir = tempDir(t);
  const ev = evidenceWith(dir, [
    probe('pool', {
      result_text: '["The pool size is 20","Swimming pool opens at 7"]',
      items: [
        { rank: 1, content: 'The pool size is 20' },
        { rank: 2, content: 'Swimming pool opens at 7' },
      ],
    }),
  ]);
  t.after(() => ev.close());
  const stored = readRecallProbes(ev.db)!;
  assert.deepEqual([...stored.keys()], ['pool']);
  return (async () => {
    const ctx = ctxOf(ev);
    assert.equal((await judgeOne(A({ kind: 'recall', query: 'pool', contains: 'size is 20' }), ctx)).outcome, 'pass');
    assert.equal((await judgeOne(A({ kind: 'recall', query: 'pool', not_contains: 'Swimming' }), ctx)).outcome, 'fail');
    const rank = await judgeOne(A({ kind: 'rank', query: 'pool', memory: '$ref:pool', top_k: 1 }), ctx);
    assert.equal(rank.outcome, 'pass', rank.detail);
    assert.deepEqual(rank.actual, { results: 2, position: 1 });
    const llm = await judgeOne(
      A({
        kind: 'llm',
        check: 'relevance',
        subject: 'recall',
        query: 'pool',
        scripted: { verdict: 'fail', rules: [{ when: '1. The pool size is 20', verdict: 'pass' }] },
      }),
      ctx,
    );
    assert.equal(llm.outcome, 'pass', llm.detail);
  })();
});

test('an errored, unreadable or missing probe, and evidence without the table, make every judge over it error with why', async (t) => {
  const assertions = (q: string) => [
    A({ kind: 'recall', query: q, not_contains: 'secret' }),
    A({ kind: 'rank', query: q, max_results: 0 }),
    A({ kind: 'llm', check: 'rubric', subject: 'recall', query: q, criteria: 'x', scripted: { verdict: 'pass' } }),
  ];
  const dir = tempDir(t);
  const ev = evidenceWith(
    dir,
    [
      probe('crashed', { is_error: true, unreadable: 'the probe failed: server exited (code 1)' }),
      probe('drifted', { result_text: 'Found: secret', unreadable: 'its text holds no result' }),
    ],
    // a row whose items are not what the evidence writes: unreadable, not zero results
    `INSERT INTO recall_probes (query, result_text, items, itemised, is_error) VALUES ('garbled', 'x', 'not json', 1, 0)`,
  );
  t.after(() => ev.close());
  const cases: [string, RegExp][] = [
    ['crashed', /the probe failed: server exited/],
    ['drifted', /its text holds no result/],
    ['garbled', /stored items are not a list/],
    ['never probed', /no probe of this query is stored/],
  ];
  for (const [q, why] of cases)
    for (const a of assertions(q)) {
      const j = await judgeOne(a, ctxOf(ev));
      assert.equal(j.outcome, 'error', `${q} ${a.kind}: ${j.detail}`);
      assert.match(j.detail, why, `${q} ${a.kind}`);
    }
  const old = evidenceWith(tempDir(t), null);
  t.after(() => old.close());
  for (const a of assertions('pool')) {
    const j = await judgeOne(a, ctxOf(old));
    assert.equal(j.outcome, 'error', `${a.kind}: ${j.detail}`);
    assert.match(j.detail, /no recall_probes table/, a.kind);
  }
});

test('an sql assertion may read recall_probes: the load-time check knows the table and its columns', async () => {
  const { checkAssertion } = await import('../../../src/judge/registry.ts');
  const sql = (query: string) => A({ kind: 'sql', query, op: 'gte', value: 1 });
  assert.deepEqual(
    checkAssertion(
      sql(
        "SELECT count(*) FROM recall_probes, json_each(recall_probes.items) AS i WHERE instr(json_extract(i.value, '$.content'), 'pool') > 0 AND is_error = 0",
      ),
    ),
    [],
  );
  assert.match(checkAssertion(sql('SELECT count(*) FROM recall_probe')).join('\n'), /no such table.*recall_probes/);
});
