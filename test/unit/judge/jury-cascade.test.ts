import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { assertionSchema, type Assertion } from '../../../src/scenario/schema.ts';
import { checkAssertion, judgeOne } from '../../../src/judge/registry.ts';
import type { JudgeContext } from '../../../src/judge/context.ts';
import { openJudgeModel, type JudgeModel } from '../../../src/judge/llm/client.ts';
import { resolveJudgeConfig } from '../../../src/judge/llm/config.ts';
import { phaseVerdict } from '../../../src/judge/verdict.ts';

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
const ctx = (): JudgeContext => ({
  evidence: { db, dir: '/nonexistent', storeFiles: [], viewSql: {}, close() {} },
  judgeModel: model,
});

// jurors: deterministic pass/fail, scripted llm pass/fail/error/abstain, a juror whose SQL throws
const P = { kind: 'count', name: 'two memories', op: 'eq', value: 2 };
const F = { kind: 'count', name: 'nine memories', op: 'eq', value: 9 };
const llm = (name: string, scripted: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  kind: 'llm',
  name,
  check: 'rubric',
  subject: 'memories',
  criteria: 'durable facts only',
  scripted,
  ...extra,
});
const LP = llm('llm pass', { verdict: 'pass' });
const LF = llm('llm fail', { verdict: 'fail' });
const LE = llm('llm unreadable', { verdict: 'pass', quirk: 'invalid-json' });
const LA = llm('llm unsure', { verdict: 'pass', confidence: 0.3 });
const THROWS = { kind: 'sql', name: 'broken sql', query: 'SELECT nope FROM nowhere', op: 'eq', value: 1 };
const num = (name: string, score: number) =>
  llm(name, { verdict: 'pass', score }, { score: { type: 'numeric', min: 0, max: 10, threshold: 5 } });

const jury = (judges: unknown[], rule: string, extra: Record<string, unknown> = {}): Assertion =>
  assertionSchema.parse({ kind: 'jury', name: 'jury', phase: 'both', judges, rule, ...extra });

const cascade = (tiers: { policy: string; judges: unknown[] }[]): Assertion =>
  assertionSchema.parse({ kind: 'cascade', name: 'cascade', phase: 'both', tiers });

const CASES: [string, Assertion, string][] = [
  ['majority 2 of 3 passes', jury([P, LP, F], 'majority'), 'pass'],
  ['majority tie fails', jury([P, LF], 'majority'), 'fail'],
  ['unanimous all pass', jury([P, LP], 'unanimous'), 'pass'],
  ['unanimous one fail', jury([P, LP, LF], 'unanimous'), 'fail'],
  ['any one pass', jury([F, LF, LP], 'any'), 'pass'],
  ['any none pass', jury([F, LF], 'any'), 'fail'],
  [
    'average 0.8 and 0.4 = 0.6 meets threshold 0.6',
    jury([num('a', 8), num('b', 4)], 'average', { threshold: 0.6 }),
    'pass',
  ],
  ['average 0.6 misses threshold 0.7', jury([num('a', 8), num('b', 4)], 'average', { threshold: 0.7 }), 'fail'],
  ['weighted 3:1 for pass', jury([P, LF], 'weighted', { weights: [3, 1] }), 'pass'],
  ['weighted 1:3 for pass', jury([P, LF], 'weighted', { weights: [1, 3] }), 'fail'],
  ['weighted 1:3 with threshold 0.25', jury([P, LF], 'weighted', { weights: [1, 3], threshold: 0.25 }), 'pass'],
  ['an error vote is not a fail vote: 1 decided vote of 2 is short of the quorum', jury([P, LE], 'majority'), 'error'],
  [
    'every juror answers garbage: no quorum, the jury errors (never a fail vote)',
    jury([LE, LE, LE], 'majority'),
    'error',
  ],
  ['every juror answers garbage, rule any: the jury errors', jury([LE, LE], 'any'), 'error'],
  ['an error vote does not count; 2 decided votes of 3 meet the quorum', jury([P, LP, LE], 'majority'), 'pass'],
  ['quorum: 1 lets one decided vote decide', jury([P, LE], 'majority', { quorum: 1 }), 'pass'],
  ['quorum: 3 of 3 is not met with one error', jury([P, LP, LE], 'majority', { quorum: 3 }), 'error'],
  ['errors: error makes the jury error', jury([P, LP, LE], 'majority', { errors: 'error' }), 'error'],
  ['a juror that throws is an error vote, not a crash', jury([P, LP, THROWS], 'majority'), 'pass'],
  ['a juror that throws, errors: error', jury([P, THROWS], 'any', { errors: 'error' }), 'error'],
  ['abstentions are ignored, the rest meet the quorum', jury([P, LP, LA], 'unanimous'), 'pass'],
  ['abstentions: error makes the jury error', jury([P, LP, LA], 'unanimous', { abstentions: 'error' }), 'error'],
  ['every juror abstains: no quorum, the jury errors', jury([LA, LA], 'majority'), 'error'],
  [
    'weighted: an error vote carries no weight and is not a fail',
    jury([P, LP, LE], 'weighted', { weights: [1, 1, 5] }),
    'pass',
  ],
];

for (const [label, a, outcome] of CASES) {
  test(`jury: ${label} -> ${outcome}`, async () => {
    const j = await judgeOne(a, ctx());
    assert.equal(j.outcome, outcome, j.detail);
    assert.equal(j.members?.length, (a as { judges: unknown[] }).judges.length);
  });
}

test('a jury or cascade whose members error or abstain never reads as detected in a violation phase, nor as pass in a well-behaved one', async () => {
  const garbage = await judgeOne(jury([LE, LE, LE], 'majority'), ctx());
  const unsure = await judgeOne(jury([LA, LA, LP], 'any'), ctx());
  const stuck = await judgeOne(
    cascade([
      { policy: 'reject-on-any-fail', judges: [P] },
      { policy: 'final', judges: [LA, LP] },
    ]),
    ctx(),
  );
  const cheap = await judgeOne(assertionSchema.parse({ ...P, phase: 'both' }), ctx());
  for (const j of [garbage, unsure, stuck]) {
    assert.equal(j.outcome, 'error', `${j.name}: ${j.detail}`);
    assert.match(j.detail, /quorum|undecided/);
    assert.equal(
      phaseVerdict({ judgedAs: 'violation', expectation: 'detect', refusedCalls: 0, judgments: [cheap, j] }).verdict,
      'error',
    );
    assert.equal(phaseVerdict({ judgedAs: 'well-behaved', refusedCalls: 0, judgments: [cheap, j] }).verdict, 'error');
  }
  const tally = garbage.jury as { quorum: number; decided: number };
  assert.deepEqual({ q: tally.quorum, d: tally.decided }, { q: 2, d: 0 });
});

test('without a judge model the llm jurors abstain as such: the jury and the cascade abstain (the run warns), they do not error', async () => {
  const none = { ...ctx(), judgeModel: null };
  assert.equal((await judgeOne(jury([LP, LF, LP], 'majority'), none)).outcome, 'abstain');
  assert.equal(
    (
      await judgeOne(
        cascade([
          { policy: 'reject-on-any-fail', judges: [P] },
          { policy: 'final', judges: [LP] },
        ]),
        none,
      )
    ).outcome,
    'abstain',
  );
  // a mix of unconfigured and erroring jurors is still an error
  assert.equal((await judgeOne(jury([LP, THROWS], 'majority'), none)).outcome, 'error');
});

test('jury schema: errors/abstentions "fail" are refused with the fix; quorum is 1..judges', () => {
  for (const field of ['errors', 'abstentions']) {
    const r = assertionSchema.safeParse({
      kind: 'jury',
      name: 'j',
      phase: 'both',
      judges: [P, F],
      rule: 'any',
      [field]: 'fail',
    });
    assert.equal(r.success, false, field);
    assert.match(r.error!.issues.map((i) => i.message).join(), /never a fail vote.*"ignore".*"error"/, field);
  }
  assert.equal(
    assertionSchema.safeParse({ kind: 'jury', name: 'j', phase: 'both', judges: [P, F], rule: 'any', quorum: 3 })
      .success,
    false,
  );
  assert.equal(
    assertionSchema.safeParse({ kind: 'jury', name: 'j', phase: 'both', judges: [P, F], rule: 'any', quorum: 0 })
      .success,
    false,
  );
  assert.equal(
    assertionSchema.safeParse({ kind: 'jury', name: 'j', phase: 'both', judges: [P, F], rule: 'any', quorum: 2 })
      .success,
    true,
  );
});

test('jury schema: average needs a threshold, weighted needs one weight per judge', () => {
  assert.equal(
    assertionSchema.safeParse({ kind: 'jury', name: 'j', phase: 'both', judges: [P, F], rule: 'average' }).success,
    false,
  );
  assert.equal(
    assertionSchema.safeParse({
      kind: 'jury',
      name: 'j',
      phase: 'both',
      judges: [P, F],
      rule: 'weighted',
      weights: [1],
    }).success,
    false,
  );
  assert.equal(
    assertionSchema.safeParse({
      kind: 'jury',
      name: 'j',
      phase: 'both',
      judges: [{ kind: 'count', name: 'x', op: 'eq' }],
      rule: 'any',
    }).success,
    false,
  );
});

interface CascadeRecord {
  decided_by_tier: number;
  model_judges_skipped: number;
  model_calls_made: number;
  tokens_spent: number;
  tokens_saved_estimate: number | null;
}

test('cascade reject-on-any-fail: a failing cheap tier decides fail and no model call is made', async () => {
  const j = await judgeOne(
    cascade([
      { policy: 'reject-on-any-fail', judges: [P, F] },
      { policy: 'final', judges: [LP, LP] },
    ]),
    ctx(),
  );
  assert.equal(j.outcome, 'fail');
  const c = j.cascade as CascadeRecord;
  assert.equal(c.decided_by_tier, 0);
  assert.equal(c.model_judges_skipped, 2);
  assert.equal(c.model_calls_made, 0);
  assert.equal(j.members?.length, 2, 'the llm tier never ran');
  assert.match(
    j.detail,
    /tier 1\/2 \(reject-on-any-fail\) decided fail: rejected by nine memories; 2 model judge call\(s\) saved/,
  );
});

test('cascade accept-on-all-pass: a passing cheap tier decides pass', async () => {
  const j = await judgeOne(
    cascade([
      { policy: 'accept-on-all-pass', judges: [P] },
      { policy: 'final', judges: [LF] },
    ]),
    ctx(),
  );
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
  const j = await judgeOne(
    cascade([
      { policy: 'reject-on-any-fail', judges: [P] },
      { policy: 'accept-on-all-pass', judges: [LP] },
      { policy: 'final', judges: [LF, LF] },
    ]),
    ctx(),
  );
  assert.equal(j.outcome, 'pass');
  const c = j.cascade as CascadeRecord;
  assert.equal(c.model_calls_made, 1);
  assert.equal(c.model_judges_skipped, 2);
  assert.equal(c.tokens_saved_estimate, c.tokens_spent * 2);
});

test('cascade: a judge error stops it with error; an undecided final tier is an error, not a decision', async () => {
  assert.equal(
    (
      await judgeOne(
        cascade([
          { policy: 'reject-on-any-fail', judges: [THROWS] },
          { policy: 'final', judges: [LP] },
        ]),
        ctx(),
      )
    ).outcome,
    'error',
  );
  assert.equal((await judgeOne(cascade([{ policy: 'final', judges: [LE, LF] }]), ctx())).outcome, 'error');
  const unsure = await judgeOne(cascade([{ policy: 'final', judges: [LA] }]), ctx());
  assert.equal(unsure.outcome, 'error', unsure.detail);
  assert.match(unsure.detail, /undecided: llm unsure abstained/);
  assert.equal((await judgeOne(cascade([{ policy: 'final', judges: [LP, LA] }]), ctx())).outcome, 'error');
  // an abstaining judge in a deciding tier hands over: the next tier decides on its own votes
  assert.equal(
    (
      await judgeOne(
        cascade([
          { policy: 'accept-on-all-pass', judges: [LP, LA] },
          { policy: 'final', judges: [LF] },
        ]),
        ctx(),
      )
    ).outcome,
    'fail',
  );
});

test('cascade schema: the last tier is final, only the last, and deterministic tiers come first', () => {
  const bad = [
    [{ policy: 'reject-on-any-fail', judges: [P] }],
    [
      { policy: 'final', judges: [P] },
      { policy: 'final', judges: [F] },
    ],
  ];
  for (const tiers of bad)
    assert.equal(
      assertionSchema.safeParse({ kind: 'cascade', name: 'c', phase: 'both', tiers }).success,
      false,
      JSON.stringify(tiers),
    );
  // the tier order is a load-time check (it reads the kind records, which the schema may not import)
  const llmFirst = assertionSchema.parse({
    kind: 'cascade',
    name: 'c',
    phase: 'both',
    tiers: [
      { policy: 'reject-on-any-fail', judges: [LP] },
      { policy: 'final', judges: [P] },
    ],
  });
  assert.match(checkAssertion(llmFirst).join(), /deterministic tiers must come before tiers with llm judges/);
});

test('jurors with their own models: each is opened once from the pool; an unreachable one casts an error vote', async (t) => {
  const { JudgePool } = await import('../../../src/judge/llm/pool.ts');
  const pool = new JudgePool(model, {}, { maxRetries: 0 });
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
  const members = j.members as {
    name: string;
    outcome: string;
    llm?: { calls: { model: string; endpoint: string }[] };
  }[];
  assert.equal(members[2].outcome, 'error');
  assert.equal(members[2].llm?.calls[0].endpoint, 'http://127.0.0.1:9/v1');
  const strict = await judgeOne({ ...a, errors: 'error' } as Assertion, { ...ctx(), judgePool: pool });
  assert.equal(strict.outcome, 'error');
  // every juror at a dead endpoint: no decided vote, the jury errors whatever the rule
  const dead = (name: string) =>
    llm(name, { verdict: 'pass' }, { model: 'llama-x', base_url: 'http://127.0.0.1:9/v1' });
  for (const rule of ['majority', 'unanimous', 'any']) {
    const d = await judgeOne(jury([dead('d1'), dead('d2')], rule), { ...ctx(), judgePool: pool });
    assert.equal(d.outcome, 'error', `${rule}: ${d.detail}`);
    assert.match(d.detail, /no quorum: 0 of 2 jurors decided \(quorum 2\)/);
  }
});
