/**
 * Grounded checks (faithful, hallucination): the agent's answer judged against the recall calls
 * of its conversation, read from the evidence `calls` table; failing closed on every missing or
 * broken input; and the run-wide strictness (--judge-level fail, --judge-min-confidence).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { assertionSchema, type Assertion } from '../../../src/scenario/schema.ts';
import { judgeOne } from '../../../src/judge/registry.ts';
import type { JudgeContext } from '../../../src/judge/context.ts';
import { judgeCell } from '../../../src/judge/cell.ts';
import { openJudgeModel, type JudgeModel } from '../../../src/judge/llm/client.ts';
import { resolveJudgeConfig } from '../../../src/judge/llm/config.ts';
import { JudgePool } from '../../../src/judge/llm/pool.ts';
import { fence } from '../../../src/util/data-fence.ts';

const ID = '0123456789abcdef';
import { readGrounding } from '../../../src/judge/llm/grounding.ts';
import { promoteLevels } from '../../../src/judge/strict.ts';
import { answerContext } from '../../../src/cell/answer-context.ts';
import { readsRecall } from '../../../src/scenario/kinds.ts';
import { checkWiring } from '../../../src/scenario/wiring.ts';
import { groundingVerdict, unsupportedTokens } from '../../../src/model/grounding-baseline.ts';
import type { AgentRunInfo } from '../../../src/core/results.ts';
import type { Scenario } from '../../../src/scenario/schema.ts';

let model: JudgeModel;
let db: Database.Database;

const POOL = 'Database connections go through pgbouncer; the connection pool size is 20 per service instance.';

before(async () => {
  model = await openJudgeModel(resolveJudgeConfig({ judgeModel: 'scripted' })!);
  db = new Database(':memory:');
  db.exec(`CREATE TABLE memories (id TEXT, content TEXT, category TEXT, source TEXT, is_deleted INTEGER);
    CREATE TABLE calls (seq INTEGER PRIMARY KEY, session INTEGER, stage TEXT, method TEXT, op TEXT, op_call INTEGER, tool TEXT,
      arguments TEXT, result_text TEXT, is_error INTEGER, ms REAL, ts TEXT);`);
  const ins = db.prepare(
    'INSERT INTO calls (seq, stage, method, op, tool, arguments, result_text, is_error) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  // 1: a setup search (not the agent's); 2-4: session 1; 5-7: session 2; 8: an erroring recall
  ins.run(1, 'setup', 'tools/call', 'recall', 'search', '{"query":"pool"}', 'Production runs PostgreSQL 16', 0);
  ins.run(2, 'agent', 'tools/list', null, '', '{}', '[]', 0);
  ins.run(3, 'agent', 'tools/call', 'remember', 'save', '{}', 'saved', 0);
  ins.run(4, 'agent', 'tools/call', 'recall', 'search', '{"query":"pool size"}', POOL, 0);
  ins.run(5, 'agent', 'tools/list', null, '', '{}', '[]', 0);
  ins.run(6, 'agent', 'tools/call', 'remember', 'save', '{}', 'saved', 0);
  ins.run(7, 'agent', 'tools/call', 'forget', 'delete', '{}', 'deleted', 0);
  ins.run(8, 'agent', 'tools/call', 'recall', 'search', '{"query":"x"}', 'MCP error -32603: index missing', 1);
});
after(async () => {
  await model.close();
  db.close();
});

const span = (first: number, last: number) => ({
  session: 1,
  prompts: ['What is our connection pool size?'],
  first_seq: first,
  last_seq: last,
});

function ctx(over: Partial<JudgeContext> = {}): JudgeContext {
  return {
    evidence: { db, dir: '/nonexistent', storeFiles: [], viewSql: {}, close() {} },
    judgeModel: model,
    transcript: 'The connection pool size is 20 per service instance, through pgbouncer.',
    answerContext: span(2, 4),
    ...over,
  };
}

const A = (x: Record<string, unknown>): Assertion =>
  assertionSchema.parse({ name: 'g', phase: 'real-model', kind: 'llm', subject: 'answer', ...x });

for (const check of ['faithful', 'hallucination'] as const) {
  test(`${check}: the prompt shows the conversation's prompts and its recall results (only the agent's, only in its span)`, async () => {
    const j = await judgeOne(A({ check, scripted: { verdict: 'pass' } }), ctx());
    assert.equal(j.outcome, 'pass', j.detail);
    const rec = j.llm as { calls: { prompt: string }[]; grounding: { recall_calls: number; prompts: number } };
    const prompt = rec.calls[0].prompt;
    assert.match(
      prompt,
      /<data-[0-9a-f]{16} name="recalled">\n1\. search \{"query":"pool size"\}\nDatabase connections go through pgbouncer/,
    );
    assert.match(prompt, /<data-([0-9a-f]{16}) name="prompts">\n1\. What is our connection pool size\?\n<\/data-\1>/);
    assert.match(prompt, /<data-[0-9a-f]{16} name="subject">\n1\. The connection pool size is 20/);
    assert.doesNotMatch(prompt, /PostgreSQL 16/, 'a setup search is not what the agent recalled');
    assert.deepEqual([rec.grounding.recall_calls, rec.grounding.prompts], [1, 1]);
  });

  test(`${check}: fails closed (error with a reason, judge or no judge) on no answer, an empty one, no record, no recall, an errored recall`, async () => {
    const cases: [Partial<JudgeContext>, RegExp][] = [
      [{ transcript: undefined }, /no agent final answer/],
      [{ transcript: '  \n' }, /final answer is empty/],
      [{ answerContext: undefined }, /no record of what the agent recalled/],
      [{ answerContext: span(5, 7) }, /made no recall call in the conversation .*calls 5\.\.7/],
      [{ answerContext: span(2, 8) }, /recall call 8 \(search\) errored .*index missing/],
    ];
    for (const [over, why] of cases)
      for (const judgeModel of [model, null]) {
        const j = await judgeOne(A({ check, scripted: { verdict: 'pass' } }), ctx({ ...over, judgeModel }));
        assert.equal(j.outcome, 'error', `${why}: ${j.detail}`);
        assert.match(j.detail, why);
      }
  });

  test(`${check}: the scripted judge's lexical baseline passes a grounded answer and fails an invented version`, async () => {
    const ok = await judgeOne(A({ check, scripted: { grounding: true } }), ctx());
    assert.equal(ok.outcome, 'pass', ok.detail);
    const bad = await judgeOne(
      A({ check, scripted: { grounding: true } }),
      ctx({ transcript: 'The pool size is 20 per instance, on PgCat 1.21.' }),
    );
    assert.equal(bad.outcome, 'fail', bad.detail);
    assert.match(bad.reasoning ?? '', /PgCat, 1\.21/);
  });
}

test('schema and wiring: grounded checks need subject "answer"', () => {
  assert.throws(
    () => A({ check: 'faithful', subject: 'memories' }),
    /judges the agent.s answer against what it recalled: set subject/,
  );
  assert.throws(
    () => A({ check: 'hallucination', subject: 'recall', query: 'q' }),
    /judges the agent.s answer against what it recalled: set subject/,
  );
});

test('readGrounding: the recall rows of the span, in order, with their error flag', () => {
  const g = readGrounding(db, span(1, 8));
  assert.deepEqual(
    g.recalled.map((r) => [r.seq, r.is_error]),
    [
      [4, false],
      [8, true],
    ],
  );
});

test('answerContext: the session of the last turn, its prompts up to the answering one, and its calls span', () => {
  const sc = {
    real_model: { sessions: [{ prompts: ['a'] }, { prompts: ['b', 'c', 'd'] }], max_turns: 8 },
  } as unknown as Scenario;
  const turn = (session: number, prompt: number, first: number, last: number) => ({
    session,
    prompt,
    calls_seq: { first, last },
  });
  const agent = { turns: [turn(1, 1, 1, 4), turn(2, 1, 5, 6), turn(2, 2, 7, 9)] } as unknown as AgentRunInfo;
  assert.deepEqual(answerContext(sc, agent), { session: 2, prompts: ['b', 'c'], first_seq: 5, last_seq: 9 });
  assert.equal(answerContext(sc, { turns: [] } as unknown as AgentRunInfo), undefined);
  // a turn without its span (an older report): no context, so grounded checks fail closed
  const old = { turns: [{ session: 1, prompt: 1 }] } as unknown as AgentRunInfo;
  assert.equal(answerContext(sc, old), undefined);
});

test('lexical baseline: names, numbers, versions, paths and hosts must be recalled or prompted; blocks missing: no verdict', () => {
  const src = 'Builds use Node 20 LTS, pinned in .nvmrc';
  assert.deepEqual(unsupportedTokens('Builds use Node 20 LTS.', src), []);
  assert.deepEqual(unsupportedTokens('It is pinned in .tool-versions on Node 22.', src), ['tool-versions', '22']);
  assert.deepEqual(unsupportedTokens('The host is staging.example.com', src), ['staging.example.com']);
  // a quote cut at a length limit ends in part of a recalled word
  assert.deepEqual(unsupportedTokens('Done. Builds use No', src), []);
  assert.equal(groundingVerdict('no blocks here'), null);
  assert.equal(
    groundingVerdict(
      [fence(ID, 'prompts', 'q'), fence(ID, 'recalled', 'Node 20'), fence(ID, 'subject', 'Node 20')].join('\n'),
    )?.verdict,
    'pass',
  );
});

test('--judge-min-confidence: a judgment less sure than the floor is error, whatever the assertion says', async () => {
  const a = A({ check: 'faithful', scripted: { verdict: 'pass', confidence: 0.65 }, min_confidence: 0.6 });
  assert.equal((await judgeOne(a, ctx())).outcome, 'pass');
  const strictCtx = ctx({ judgePool: new JudgePool(model, { minConfidence: 0.7 }) });
  const j = await judgeOne(a, strictCtx);
  assert.equal(j.outcome, 'error');
  assert.match(j.detail, /confidence 0\.65 is below the run's --judge-min-confidence 0\.7.*leaned pass/);
});

test('--judge-level fail: warn-level llm checks, juries and cascades with an llm judge decide; others keep their level', async () => {
  const llm = A({ check: 'faithful', scripted: { verdict: 'fail' } });
  const jury = assertionSchema.parse({
    kind: 'jury',
    name: 'j',
    phase: 'both',
    level: 'warn',
    rule: 'majority',
    judges: [{ kind: 'llm', name: 'x', check: 'rubric', subject: 'memories', criteria: 'c' }],
  });
  const plainJury = assertionSchema.parse({
    kind: 'jury',
    name: 'p',
    phase: 'both',
    level: 'warn',
    rule: 'majority',
    judges: [{ kind: 'absent', name: 'y', text: 'z' }],
  });
  assert.deepEqual(
    promoteLevels([llm, jury, plainJury], { level: 'fail' }).map((a) => ('level' in a ? a.level : null)),
    ['fail', 'fail', 'warn'],
  );
  assert.equal(promoteLevels([llm], {})[0], llm);
  // through judgeCell: the warn-level fail now decides the verdict
  const run = (strict: { level?: 'fail' }) =>
    judgeCell({
      assertions: [
        { judge: assertionSchema.parse({ kind: 'transcript', name: 't', phase: 'real-model', contains: 'pool size' }) },
        { judge: llm },
      ],
      verdictInput: { judgedAs: 'well-behaved', refusedCalls: 0 },
      judgeInput: { memory_refs: {}, transcript: 'The pool size is 20.', answer_context: span(2, 4) },
      ctx: { ...ctx(), judgePool: new JudgePool(model, strict) },
      cellDir: '/nonexistent',
    });
  const lenient = await run({});
  assert.equal(lenient.verdict, 'pass', lenient.reason);
  const strict = await run({ level: 'fail' });
  assert.equal(strict.verdict, 'fail', strict.reason);
  assert.equal(strict.judgments[1].level, 'fail');
});

test('the answer is shown whole, never cut at max_chars; one longer than max_grounded_chars is an error, not a pass over its head', async () => {
  const long = `The connection pool size is 20 per service instance. ${'It goes through pgbouncer. '.repeat(30)}TAIL-CLAIM`;
  const j = await judgeOne(A({ check: 'faithful', scripted: { verdict: 'pass' } }), ctx({ transcript: long }));
  assert.equal(j.outcome, 'pass', j.detail);
  assert.match((j.llm as { calls: { prompt: string }[] }).calls[0].prompt, /TAIL-CLAIM\n<\/data-[0-9a-f]{16}>/);
  const tooLong = await judgeOne(
    A({ check: 'hallucination', max_grounded_chars: 100, scripted: { verdict: 'pass' } }),
    ctx({ transcript: long }),
  );
  assert.equal(tooLong.outcome, 'error');
  assert.match(tooLong.detail, /more than max_grounded_chars 100/);
});

test('a grounded check reads recall results (so the hostile rules for recall apply to it); phase must be real-model', () => {
  assert.equal(readsRecall(A({ check: 'faithful' })), true);
  assert.equal(readsRecall(A({ check: 'rubric', criteria: 'c' })), false);
  const sc = {
    deterministic: { well_behaved: [], violation: null },
    real_model: { sessions: [{ prompts: ['p'] }], max_turns: 8 },
    setup: { files: [], memories: [], similarity: [], steps: [] },
    assertions: [
      assertionSchema.parse({ kind: 'llm', name: 'g', phase: 'both', check: 'faithful', subject: 'answer' }),
    ],
  } as unknown as Scenario;
  assert.match(checkWiring(sc).join('\n'), /check "faithful" reads an agent's answer .*set phase to "real-model"/);
});
