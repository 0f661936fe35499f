import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { assertionSchema, type Assertion } from '../src/scenario/schema.ts';
import { judgeOne } from '../src/judge/registry.ts';
import type { JudgeContext } from '../src/judge/context.ts';
import { openJudgeModel, type JudgeModel } from '../src/judge/llm/client.ts';
import { resolveJudgeConfig } from '../src/judge/llm/config.ts';

let model: JudgeModel;
let db: Database.Database;
before(async () => {
  model = await openJudgeModel(resolveJudgeConfig({ judgeModel: 'scripted' })!);
  db = new Database(':memory:');
  db.exec(`CREATE TABLE memories (id TEXT, content TEXT, category TEXT, source TEXT, is_deleted INTEGER);
    INSERT INTO memories VALUES ('1', 'User prefers pnpm', 'preference', 'user', 0), ('2', 'tests: 3 failed at 14:02', 'note', 'agent', 0);`);
});
after(async () => {
  await model.close();
  db.close();
});
const ctx = (): JudgeContext => ({ evidence: { db, dir: '/nonexistent', storeFiles: [], viewSql: {}, close() {} }, judgeModel: model });

// jurors: deterministic pass/fail, scripted llm pass/fail/error/abstain, a juror whose SQL throws
const P = { kind: 'count', name: 'two memories', op: 'eq', value: 2 };
const F = { kind: 'count', name: 'nine memories', op: 'eq', value: 9 };
const llm = (name: string, scripted: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ kind: 'llm', name, check: 'rubric', subject: 'memories', criteria: 'durable facts only', scripted, ...extra });
const LP = llm('llm pass', { verdict: 'pass' });
const LF = llm('llm fail', { verdict: 'fail' });
const LE = llm('llm unreadable', { verdict: 'pass', quirk: 'invalid-json' });
const LA = llm('llm unsure', { verdict: 'pass', confidence: 0.3 });
const THROWS = { kind: 'sql', name: 'broken sql', query: 'SELECT nope FROM nowhere', op: 'eq', value: 1 };
const num = (name: string, score: number) => llm(name, { verdict: 'pass', score }, { score: { type: 'numeric', min: 0, max: 10, threshold: 5 } });

const jury = (judges: unknown[], rule: string, extra: Record<string, unknown> = {}): Assertion =>
  assertionSchema.parse({ kind: 'jury', name: 'jury', phase: 'both', judges, rule, ...extra });

const CASES: [string, Assertion, string][] = [
  ['majority 2 of 3 passes', jury([P, LP, F], 'majority'), 'pass'],
  ['majority tie fails', jury([P, LF], 'majority'), 'fail'],
  ['unanimous all pass', jury([P, LP], 'unanimous'), 'pass'],
  ['unanimous one fail', jury([P, LP, LF], 'unanimous'), 'fail'],
  ['any one pass', jury([F, LF, LP], 'any'), 'pass'],
  ['any none pass', jury([F, LF], 'any'), 'fail'],
  ['average 0.8 and 0.4 = 0.6 meets threshold 0.6', jury([num('a', 8), num('b', 4)], 'average', { threshold: 0.6 }), 'pass'],
  ['average 0.6 misses threshold 0.7', jury([num('a', 8), num('b', 4)], 'average', { threshold: 0.7 }), 'fail'],
  ['weighted 3:1 for pass', jury([P, LF], 'weighted', { weights: [3, 1] }), 'pass'],
  ['weighted 1:3 for pass', jury([P, LF], 'weighted', { weights: [1, 3] }), 'fail'],
  ['weighted 1:3 with threshold 0.25', jury([P, LF], 'weighted', { weights: [1, 3], threshold: 0.25 }), 'pass'],
  ['an error vote counts as fail by default', jury([P, LE], 'majority'), 'fail'],
  ['errors: ignore drops the error vote', jury([P, LE], 'majority', { errors: 'ignore' }), 'pass'],
  ['errors: error makes the jury error', jury([P, LE], 'majority', { errors: 'error' }), 'error'],
  ['a juror that throws is an error vote, not a crash', jury([P, LP, THROWS], 'majority'), 'pass'],
  ['a juror that throws, errors: error', jury([P, THROWS], 'any', { errors: 'error' }), 'error'],
  ['abstentions are ignored by default', jury([P, LA], 'unanimous'), 'pass'],
  ['abstentions: fail', jury([P, LA], 'unanimous', { abstentions: 'fail' }), 'fail'],
  ['every juror abstains: the jury abstains', jury([LA, LA], 'majority'), 'abstain'],
];

for (const [label, a, outcome] of CASES) {
  test(`jury: ${label} -> ${outcome}`, async () => {
    const j = await judgeOne(a, ctx());
    assert.equal(j.outcome, outcome, j.detail);
    assert.equal(j.members?.length, (a as { judges: unknown[] }).judges.length);
  });
}

test('jury schema: average needs a threshold, weighted needs one weight per judge', () => {
  assert.equal(assertionSchema.safeParse({ kind: 'jury', name: 'j', phase: 'both', judges: [P, F], rule: 'average' }).success, false);
  assert.equal(assertionSchema.safeParse({ kind: 'jury', name: 'j', phase: 'both', judges: [P, F], rule: 'weighted', weights: [1] }).success, false);
  assert.equal(assertionSchema.safeParse({ kind: 'jury', name: 'j', phase: 'both', judges: [{ kind: 'count', name: 'x', op: 'eq' }], rule: 'any' }).success, false);
});

const cascade = (tiers: { policy: string; judges: unknown[] }[]): Assertion => assertionSchema.parse({ kind: 'cascade', name: 'cascade', phase: 'both', tiers });
interface CascadeRecord {
  decided_by_tier: number;
  model_judges_skipped: number;
  model_calls_made: number;
  tokens_spent: number;
  tokens_saved_estimate: number | null;
}

test('cascade reject-on-any-fail: a failing cheap tier decides fail and no model call is made', async () => {
  const j = await judgeOne(cascade([{ policy: 'reject-on-any-fail', judges: [P, F] }, { policy: 'final', judges: [LP, LP] }]), ctx());
  assert.equal(j.outcome, 'fail');
  const c = j.cascade as CascadeRecord;
  assert.equal(c.decided_by_tier, 0);
  assert.equal(c.model_judges_skipped, 2);
  assert.equal(c.model_calls_made, 0);
  assert.equal(j.members?.length, 2, 'the llm tier never ran');
  assert.match(j.detail, /tier 1\/2 \(reject-on-any-fail\) decided fail: rejected by nine memories; 2 model judge call\(s\) saved/);
});

test('cascade accept-on-all-pass: a passing cheap tier decides pass', async () => {
  const j = await judgeOne(cascade([{ policy: 'accept-on-all-pass', judges: [P] }, { policy: 'final', judges: [LF] }]), ctx());
  assert.equal(j.outcome, 'pass');
  assert.equal((j.cascade as CascadeRecord).model_judges_skipped, 1);
});

test('cascade final: undecided cheap tiers hand over to the llm tier, which decides and spends tokens', async () => {
  const j = await judgeOne(
    cascade([
      { policy: 'reject-on-any-fail', judges: [P] },
      { policy: 'accept-on-all-pass', judges: [F] },
      { policy: 'reject-on-any-fail', judges: [LP] },
      { policy: 'final', judges: [LF] },
    ]),
    ctx(),
  );
  assert.equal(j.outcome, 'fail');
  const c = j.cascade as CascadeRecord;
  assert.equal(c.decided_by_tier, 3);
  assert.equal(c.model_calls_made, 2);
  assert.ok(c.tokens_spent > 0);
  assert.equal(c.model_judges_skipped, 0);
});

test('cascade: a tokens-saved estimate comes from the calls that did run', async () => {
  const j = await judgeOne(cascade([{ policy: 'reject-on-any-fail', judges: [P] }, { policy: 'accept-on-all-pass', judges: [LP] }, { policy: 'final', judges: [LF, LF] }]), ctx());
  assert.equal(j.outcome, 'pass');
  const c = j.cascade as CascadeRecord;
  assert.equal(c.model_calls_made, 1);
  assert.equal(c.model_judges_skipped, 2);
  assert.equal(c.tokens_saved_estimate, c.tokens_spent * 2);
});

test('cascade: a judge error stops it with error; an abstaining final tier abstains', async () => {
  assert.equal((await judgeOne(cascade([{ policy: 'reject-on-any-fail', judges: [THROWS] }, { policy: 'final', judges: [LP] }]), ctx())).outcome, 'error');
  assert.equal((await judgeOne(cascade([{ policy: 'final', judges: [LA] }]), ctx())).outcome, 'abstain');
});

test('cascade schema: the last tier is final, only the last, and deterministic tiers come first', () => {
  const bad = [
    [{ policy: 'reject-on-any-fail', judges: [P] }],
    [{ policy: 'final', judges: [P] }, { policy: 'final', judges: [F] }],
    [{ policy: 'reject-on-any-fail', judges: [LP] }, { policy: 'final', judges: [P] }],
  ];
  for (const tiers of bad) assert.equal(assertionSchema.safeParse({ kind: 'cascade', name: 'c', phase: 'both', tiers }).success, false, JSON.stringify(tiers));
});

test('jurors with their own models: each is opened once from the pool; an unreachable one casts an error vote', async (t) => {
  const { JudgePool } = await import('../src/judge/llm/pool.ts');
  const pool = new JudgePool(model);
  t.after(() => pool.closeOpened());
  const a = jury(
    [
      llm('scripted juror', { verdict: 'pass' }, { model: 'scripted' }),
      llm('default juror', { verdict: 'pass' }),
      llm('local juror', { verdict: 'pass' }, { model: 'llama-x', base_url: 'http://127.0.0.1:9/v1' }),
    ],
    'unanimous',
    { errors: 'ignore' },
  );
  const j = await judgeOne(a, { ...ctx(), judgePool: pool });
  assert.equal(j.outcome, 'pass', j.detail);
  const members = j.members as { name: string; outcome: string; llm?: { calls: { model: string; endpoint: string }[] } }[];
  assert.equal(members[2].outcome, 'error');
  assert.equal(members[2].llm?.calls[0].endpoint, 'http://127.0.0.1:9/v1');
  const strict = await judgeOne({ ...a, errors: 'error' } as Assertion, { ...ctx(), judgePool: pool });
  assert.equal(strict.outcome, 'error');
});
