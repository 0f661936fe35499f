import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { assertionSchema, type Assertion } from '../../../src/scenario/schema.ts';
import { judgeOne } from '../../../src/judge/registry.ts';
import type { JudgeContext } from '../../../src/judge/context.ts';
import { openJudgeModel, type JudgeModel } from '../../../src/judge/llm/client.ts';
import { resolveJudgeConfig } from '../../../src/judge/llm/config.ts';
import { parseJudgeAnswer } from '../../../src/judge/llm/parse.ts';
import { phaseVerdict } from '../../../src/judge/verdict.ts';
import { JUDGE_QUIRKS } from '../../../src/core/scripted-judge.ts';
import { LLM_CHECKS } from '../../../src/scenario/llm-schema.ts';
import { ROOT, tempDir } from '../../helpers.ts';

let model: JudgeModel;
let db: Database.Database;

before(async () => {
  model = await openJudgeModel(resolveJudgeConfig({ judgeModel: 'scripted' })!);
  db = new Database(':memory:');
  db.exec(`CREATE TABLE memories (id TEXT, content TEXT, category TEXT, source TEXT, is_deleted INTEGER);
    INSERT INTO memories VALUES ('1', 'User prefers pnpm over npm for every repo', 'preference', 'user', 0),
                                ('2', 'tests: 3 failed at 14:02', 'note', 'agent', 0),
                                ('3', 'Deploys go through the staging pool first', 'workflow', 'user', 0);
    CREATE TABLE calls (seq INTEGER PRIMARY KEY, session INTEGER, stage TEXT, method TEXT, op TEXT, op_call INTEGER, tool TEXT,
      arguments TEXT, result_text TEXT, is_error INTEGER, ms REAL, ts TEXT);
    INSERT INTO calls (seq, stage, method, op, tool, arguments, result_text, is_error) VALUES
      (1, 'seed', 'tools/call', 'remember', 'save', '{}', 'ok', 0),
      (2, 'agent', 'tools/list', NULL, '', '{}', '[]', 0),
      (3, 'agent', 'tools/call', 'recall', 'search', '{"query":"package manager"}', 'User prefers pnpm over npm for every repo', 0);`);
});
after(async () => {
  await model.close();
  db.close();
});

function ctx(over: Partial<JudgeContext> = {}): JudgeContext {
  return {
    evidence: { db, dir: '/nonexistent', storeFiles: [], viewSql: {}, close() {} },
    judgeModel: model,
    recall: async (q) =>
      q === 'nothing'
        ? { text: 'No results found.', items: [], itemised: true }
        : { text: '[...]', items: ['User prefers pnpm over npm', `Deploys go through staging (${q})`], itemised: true },
    transcript: 'I stored your preference for pnpm.',
    answerContext: { session: 1, prompts: ['Which package manager do I prefer?'], first_seq: 2, last_seq: 3 },
    ...over,
  };
}

const A = (x: Record<string, unknown>): Assertion => assertionSchema.parse({ name: 'j', phase: 'both', ...x });

const CHECK_FIELDS: Record<(typeof LLM_CHECKS)[number], Record<string, unknown>> = {
  rubric: { subject: 'memories', criteria: 'Every memory is a durable fact, not run state' },
  relevance: { subject: 'recall', query: 'which package manager', min_relevant: 0.3 },
  ranking: { subject: 'recall', query: 'which package manager' },
  topics: { subject: 'memories', topics: ['package manager', 'deploy flow'] },
  'contains-fact': { subject: 'memories', fact: 'a preference for pnpm over npm' },
  'no-such-fact': {
    subject: 'memories',
    where: "category = 'note'",
    fact: 'transient run state such as test counts or timestamps',
  },
  faithful: { subject: 'answer' },
  hallucination: { subject: 'answer' },
};

for (const check of LLM_CHECKS) {
  test(`check ${check}: the rendered prompt carries the subject and the check's inputs, and the scripted verdict comes back over HTTP`, async () => {
    for (const verdict of ['pass', 'fail'] as const) {
      const j = await judgeOne(
        A({
          kind: 'llm',
          check,
          ...CHECK_FIELDS[check],
          level: 'fail',
          scripted: { verdict, confidence: 0.8, reasoning: `because ${verdict}` },
        }),
        ctx(),
      );
      assert.equal(j.outcome, verdict, j.detail);
      assert.equal(j.reasoning, `because ${verdict}`);
      const rec = j.llm as {
        calls: {
          prompt: string;
          raw: string;
          latency_ms: number;
          input_tokens: number;
          cost_usd: number;
          model: string;
        }[];
        confidence: number;
        subject: { items_total: number };
      };
      assert.equal(rec.calls.length, 1);
      assert.equal(rec.confidence, 0.8);
      assert.equal(rec.calls[0].cost_usd, 0);
      assert.ok(rec.calls[0].input_tokens > 0);
      assert.match(rec.calls[0].raw, new RegExp(`"verdict":"${verdict}"`));
      const prompt = rec.calls[0].prompt;
      assert.doesNotMatch(prompt, /\{\{/, 'every placeholder is filled');
      for (const v of Object.values(CHECK_FIELDS[check]))
        if (typeof v === 'string' && v !== 'memories' && v !== 'recall')
          assert.ok(prompt.includes(v.replace(/^category = 'note'$/, 'category')), `${v} in prompt`);
      if (check === 'topics') assert.match(prompt, /- deploy flow/);
      if (check === 'relevance') assert.match(prompt, /at least 30%/);
      if (CHECK_FIELDS[check].subject === 'memories' && check !== 'no-such-fact')
        assert.match(prompt, /\[preference\] User prefers pnpm/);
      if (check === 'no-such-fact') {
        assert.match(prompt, /tests: 3 failed/);
        assert.doesNotMatch(prompt, /pnpm over npm for every repo/, 'where narrows the memories');
      }
    }
  });
}

test('substring rules: the first matching rule wins, else the declared verdict', async () => {
  const scripted = {
    verdict: 'pass',
    rules: [
      { when: 'TESTS: 3 FAILED', verdict: 'fail', reasoning: 'run noise' },
      { when: 'tests', verdict: 'pass' },
    ],
  };
  const noisy = await judgeOne(
    A({ kind: 'llm', check: 'no-such-fact', subject: 'memories', fact: 'run state', scripted }),
    ctx(),
  );
  assert.equal(noisy.outcome, 'fail');
  assert.equal(noisy.reasoning, 'run noise');
  const clean = await judgeOne(
    A({
      kind: 'llm',
      check: 'no-such-fact',
      subject: 'memories',
      where: "category = 'workflow'",
      fact: 'run state',
      scripted,
    }),
    ctx(),
  );
  assert.equal(clean.outcome, 'pass');
});

const QUIRK_EXPECT: Record<(typeof JUDGE_QUIRKS)[number], { outcome: string; calls: number }> = {
  none: { outcome: 'fail', calls: 1 },
  think: { outcome: 'fail', calls: 1 },
  fence: { outcome: 'fail', calls: 1 },
  prose: { outcome: 'fail', calls: 1 },
  'invalid-once': { outcome: 'fail', calls: 2 },
  'invalid-json': { outcome: 'error', calls: 3 },
  'wrong-field': { outcome: 'error', calls: 3 },
  'bare-word': { outcome: 'error', calls: 3 },
  items: { outcome: 'fail', calls: 1 },
  'items-unmarked': { outcome: 'error', calls: 3 },
};

for (const quirk of JUDGE_QUIRKS) {
  test(`parser quirk ${quirk}: ${QUIRK_EXPECT[quirk].outcome} after ${QUIRK_EXPECT[quirk].calls} call(s), never a pass from a decoy`, async () => {
    const j = await judgeOne(
      A({ kind: 'llm', check: 'contains-fact', subject: 'memories', fact: 'x', scripted: { verdict: 'fail', quirk } }),
      ctx(),
    );
    assert.equal(j.outcome, QUIRK_EXPECT[quirk].outcome, j.detail);
    const calls = (j.llm as { calls: { attempt: number; parse_problem: string | null }[] }).calls;
    assert.equal(calls.length, QUIRK_EXPECT[quirk].calls);
    if (j.outcome === 'error') {
      assert.match(j.detail, /could not be parsed after 3 attempts/);
      assert.ok(calls.every((c) => c.parse_problem));
    }
    // the same quirk with a pass verdict never turns an unreadable answer into a pass either
    const p = await judgeOne(
      A({ kind: 'llm', check: 'contains-fact', subject: 'memories', fact: 'x', scripted: { verdict: 'pass', quirk } }),
      ctx(),
    );
    assert.equal(p.outcome, QUIRK_EXPECT[quirk].outcome === 'error' ? 'error' : 'pass');
  });
}

test('the parser takes no verdict from prose: "INCORRECT" and "CORRECT" are not answers', () => {
  for (const raw of [
    'CORRECT',
    'The answer is INCORRECT',
    'verdict: pass',
    '{"verdict": "PASSED", "confidence": 1, "reasoning": ""}',
    '',
  ])
    assert.equal(parseJudgeAnswer(raw).ok, false, raw);
  const r = parseJudgeAnswer(
    '<think>{"verdict":"fail","confidence":1,"reasoning":"x"}</think> ok {"verdict":"Pass","confidence":0.7,"reasoning":"a } brace"}',
  );
  assert.deepEqual(r, { ok: true, answer: { verdict: 'pass', confidence: 0.7, reasoning: 'a } brace' } });
  assert.equal(parseJudgeAnswer('<think>unfinished {"verdict":"pass","confidence":1,"reasoning":"x"}').ok, false);
});

test('the parser reads the decision, not the first object: per-item verdicts that disagree are no answer unless one is marked overall', () => {
  const item = (n: number, verdict: string) =>
    `Item ${n}: {"item": ${n}, "verdict": "${verdict}", "confidence": 0.9, "reasoning": "item ${n}"}`;
  const overall = (verdict: string, mark = true) =>
    `Overall: {"verdict": "${verdict}", "confidence": 0.8, "reasoning": "one item is run noise"${mark ? ', "overall": true' : ''}}`;
  // per-item objects followed by an overall verdict, unmarked: which one decides is unknowable
  const unmarked = parseJudgeAnswer([item(1, 'pass'), item(2, 'fail'), overall('fail', false)].join('\n'));
  assert.equal(unmarked.ok, false, JSON.stringify(unmarked));
  assert.match(
    (unmarked as { problem: string }).problem,
    /3 JSON answers disagree \(pass, fail, fail\).*"overall": true/,
  );
  // marked: the overall answer decides whatever the items said
  const marked = parseJudgeAnswer([item(1, 'pass'), item(2, 'fail'), overall('fail')].join('\n'));
  assert.deepEqual(marked, {
    ok: true,
    answer: { verdict: 'fail', confidence: 0.8, reasoning: 'one item is run noise' },
  });
  const first = parseJudgeAnswer([overall('pass'), item(1, 'fail')].join('\n'));
  assert.equal(first.ok && first.answer.verdict, 'pass');
  // two overall answers that disagree are no answer either
  assert.equal(parseJudgeAnswer([overall('pass'), overall('fail')].join('\n')).ok, false);
  // objects that agree on the decision are one answer (the last one's confidence and reasoning)
  const agree = parseJudgeAnswer([item(1, 'fail'), item(2, 'fail')].join('\n'));
  assert.equal(agree.ok && agree.answer.reasoning, 'item 2');
  // a numeric score that differs is a different decision
  assert.equal(
    parseJudgeAnswer(
      '{"verdict":"pass","confidence":1,"reasoning":"a","score":2} {"verdict":"pass","confidence":1,"reasoning":"b","score":5}',
    ).ok,
    false,
  );
});

test('the prompt templates tell the judge how several JSON objects are read', async () => {
  const { readFileSync, readdirSync } = await import('node:fs');
  const dir = join(ROOT, 'assets', 'judge-prompts');
  for (const f of readdirSync(dir)) assert.match(readFileSync(join(dir, f), 'utf8'), /"overall": true/, f);
});

test('a confidence below min_confidence abstains; an undeclared scripted verdict is an error', async () => {
  const low = await judgeOne(
    A({
      kind: 'llm',
      check: 'rubric',
      subject: 'answer',
      criteria: 'polite',
      scripted: { verdict: 'pass', confidence: 0.5 },
    }),
    ctx(),
  );
  assert.equal(low.outcome, 'abstain');
  assert.match(low.detail, /below min_confidence 0.6/);
  const ok = await judgeOne(
    A({
      kind: 'llm',
      check: 'rubric',
      subject: 'answer',
      criteria: 'polite',
      min_confidence: 0.4,
      scripted: { verdict: 'pass', confidence: 0.5 },
    }),
    ctx(),
  );
  assert.equal(ok.outcome, 'pass');
  const none = await judgeOne(A({ kind: 'llm', check: 'rubric', subject: 'answer', criteria: 'polite' }), ctx());
  assert.equal(none.outcome, 'error');
  assert.match(none.detail, /no verdict is declared/);
});

test('without a judge model an llm assertion abstains and says so', async () => {
  const j = await judgeOne(
    A({ kind: 'llm', check: 'rubric', subject: 'answer', criteria: 'polite', scripted: { verdict: 'fail' } }),
    ctx({ judgeModel: null }),
  );
  assert.equal(j.outcome, 'abstain');
  assert.match(j.detail, /no judge model configured/);
});

test('warn level (the default) is reported but never decides the verdict; fail level does', async () => {
  const warn = await judgeOne(
    A({ kind: 'llm', check: 'rubric', subject: 'answer', criteria: 'x', scripted: { verdict: 'fail' } }),
    ctx(),
  );
  assert.equal(warn.level, 'warn');
  assert.equal(warn.outcome, 'fail');
  const cheap = await judgeOne(A({ kind: 'count', op: 'eq', value: 3 }), ctx());
  assert.equal(cheap.outcome, 'pass');
  assert.equal(phaseVerdict({ judgedAs: 'well-behaved', refusedCalls: 0, judgments: [cheap, warn] }).verdict, 'pass');
  // a warn judgment alone decides nothing: the cell checked nothing
  assert.equal(phaseVerdict({ judgedAs: 'well-behaved', refusedCalls: 0, judgments: [warn] }).verdict, 'error');
  const hard = await judgeOne(
    A({ kind: 'llm', check: 'rubric', subject: 'answer', criteria: 'x', level: 'fail', scripted: { verdict: 'fail' } }),
    ctx(),
  );
  assert.equal(phaseVerdict({ judgedAs: 'well-behaved', refusedCalls: 0, judgments: [cheap, hard] }).verdict, 'fail');
});

test('scores: numeric within bounds against a threshold, categorical by passing categories, out-of-range is an error', async () => {
  const num = (score: number) =>
    A({
      kind: 'llm',
      check: 'rubric',
      subject: 'answer',
      criteria: 'x',
      score: { type: 'numeric', min: 1, max: 5, threshold: 4 },
      scripted: { verdict: 'pass', score },
    });
  assert.equal((await judgeOne(num(4), ctx())).outcome, 'pass');
  assert.equal((await judgeOne(num(3), ctx())).outcome, 'fail');
  const bad = await judgeOne(num(9), ctx());
  assert.equal(bad.outcome, 'error');
  assert.match(bad.detail, /outside 1..5/);
  const j = await judgeOne(num(4), ctx());
  assert.match((j.llm as { calls: { prompt: string }[] }).calls[0].prompt, /"score": <number from 1 to 5>/);
  assert.deepEqual(j.score, { type: 'numeric', value: 4, min: 1, max: 5, threshold: 4 });
  const cat = (category: string) =>
    A({
      kind: 'llm',
      check: 'rubric',
      subject: 'answer',
      criteria: 'x',
      score: { type: 'categorical', categories: ['durable', 'noise', 'secret'], passing: ['durable'] },
      scripted: { verdict: 'pass', category },
    });
  assert.equal((await judgeOne(cat('durable'), ctx())).outcome, 'pass');
  assert.equal((await judgeOne(cat('noise'), ctx())).outcome, 'fail');
  assert.equal((await judgeOne(cat('musing'), ctx())).outcome, 'error');
});

test('truncation: at most max_items items of max_chars each, and the cut is recorded', async () => {
  const j = await judgeOne(
    A({
      kind: 'llm',
      check: 'rubric',
      subject: 'memories',
      criteria: 'x',
      max_items: 2,
      max_chars: 10,
      scripted: { verdict: 'pass' },
    }),
    ctx(),
  );
  const rec = j.llm as {
    subject: { items_total: number; items_shown: number; items_cut: number };
    calls: { prompt: string }[];
  };
  assert.deepEqual(
    { t: rec.subject.items_total, s: rec.subject.items_shown, c: rec.subject.items_cut },
    { t: 3, s: 2, c: 2 },
  );
  assert.match(rec.calls[0].prompt, /\(1 more item\(s\) not shown\)/);
  assert.ok(rec.calls[0].prompt.includes('[preferenc […cut]'));
});

test('a prompt override by path replaces the built-in template', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'mine.md'), 'CUSTOM {{fact}} over {{subject}} as JSON');
  const j = await judgeOne(
    A({
      kind: 'llm',
      check: 'contains-fact',
      subject: 'answer',
      fact: 'pnpm',
      prompt: 'mine.md',
      scripted: { rules: [{ when: 'CUSTOM pnpm', verdict: 'pass' }] },
    }),
    ctx({ scenarioDir: dir }),
  );
  assert.equal(j.outcome, 'pass', j.detail);
  assert.equal((j.llm as { prompt_template: string }).prompt_template, join(dir, 'mine.md'));
});

test('schema: each check needs its inputs; relevance needs a recall subject', () => {
  for (const bad of [
    { kind: 'llm', check: 'rubric', subject: 'memories' },
    { kind: 'llm', check: 'relevance', subject: 'memories' },
    { kind: 'llm', check: 'topics', subject: 'answer' },
    { kind: 'llm', check: 'contains-fact', subject: 'sql', fact: 'x' },
    { kind: 'llm', check: 'rubric', subject: 'answer', criteria: 'x', where: 'a = 1' },
  ])
    assert.equal(assertionSchema.safeParse({ name: 'n', phase: 'both', ...bad }).success, false, JSON.stringify(bad));
});
