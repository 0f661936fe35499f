import type { Assertion, CascadeAssertion, JuryAssertion } from '../../scenario/schema.js';
import { needsModel, reads, traitsOf, withMembers } from '../../scenario/kinds.js';
import type { JudgeContext } from '../context.js';
import { decided as decidedJudgment, decidedOnEvidence, judgment, type Judgment, type Outcome } from '../judgment.js';
import { NO_JUDGE_DETAIL } from '../llm/judge-llm.js';
import type { Score } from '../score.js';
import { messageOf } from '../../util/errors.js';

/** Judges one member assertion; never throws (an exception is the member's `error`). */
export type JudgeOne = (a: Assertion) => Promise<Judgment>;

export async function safely(judgeOne: JudgeOne, a: Assertion): Promise<Judgment> {
  try {
    const j = await judgeOne(a);
    // a vote must rest on what it observed, as a verdict must (judge/verdict.ts)
    return j.outcome === 'pass' || j.outcome === 'fail'
      ? decidedOnEvidence(j)
        ? j
        : {
            ...j,
            outcome: 'error',
            passed: null,
            detail: `${j.detail}; decided ${j.outcome} without naming what it observed`,
          }
      : j;
  } catch (e) {
    return judgment(a, 'error', null, null, messageOf(e));
  }
}

/** What the decided judgments observed, one line each. */
const observedBy = (js: Judgment[]) =>
  js
    .filter(decidedOnEvidence)
    .map((j) => `${j.name}: ${j.observed}`)
    .join('; ');

/** A member's score on 0..1: numeric scores are normalised by their bounds, others are pass = 1, fail = 0. */
export function normalisedScore(j: Judgment): number | null {
  const s = j.score as Score | undefined;
  if (s?.type === 'numeric' && s.value !== null) return (s.value - s.min) / (s.max - s.min);
  if (j.outcome === 'pass') return 1;
  if (j.outcome === 'fail') return 0;
  return null;
}

interface Tally {
  votes: {
    name: string;
    outcome: Outcome;
    counted_as: 'pass' | 'fail' | 'ignored';
    weight: number;
    score: number | null;
  }[];
  rule: string;
  value: number | null;
  threshold: number | null;
  /** decided (pass/fail) votes the jury needed, and how many it got */
  quorum: number;
  decided: number;
}

/** The detail of a jury or cascade left undecided only because no judge model was configured. */
export const NO_JUDGE_COMPOSED = 'not decided: no judge model configured';

/** A member that was never asked because the run has no judge model (the run warns about those). */
function notAsked(j: Judgment): boolean {
  return j.outcome === 'abstain' && (j.detail === NO_JUDGE_DETAIL || j.detail.startsWith(NO_JUDGE_COMPOSED));
}

const undecided = (j: Judgment) => j.outcome !== 'pass' && j.outcome !== 'fail';
const why = (j: Judgment) => `${j.name} ${j.outcome === 'error' ? 'errored' : 'abstained'}: ${j.detail}`;

/**
 * Combine the jurors' judgments under the jury's rule. Only decided (pass/fail) votes count: an
 * error or abstain vote is either left out (`ignore`) or makes the jury error (`error`), and is
 * never a fail vote, which a violation phase would read as a detection. Without its quorum of
 * decided votes (default: a majority of its judges) the jury errors; it abstains only when the
 * missing votes are jurors never asked for want of a judge model.
 */
export function tallyJury(a: JuryAssertion, members: Judgment[]): { outcome: Outcome; detail: string; tally: Tally } {
  const weights = a.weights ?? members.map(() => 1);
  const quorum = a.quorum ?? Math.floor(members.length / 2) + 1;
  const tally: Tally = { votes: [], rule: a.rule, value: null, threshold: null, quorum, decided: 0 };
  for (const [i, m] of members.entries()) {
    if (undecided(m) && (m.outcome === 'error' ? a.errors : a.abstentions) === 'error')
      return {
        outcome: 'error',
        detail: `juror ${why(m)} (${m.outcome === 'error' ? 'errors' : 'abstentions'}: "error")`,
        tally,
      };
    const counted = undecided(m) ? 'ignored' : (m.outcome as 'pass' | 'fail');
    tally.votes.push({
      name: m.name,
      outcome: m.outcome,
      counted_as: counted,
      weight: weights[i],
      score: counted === 'ignored' ? null : normalisedScore(m),
    });
  }
  const counted = tally.votes.filter((v) => v.counted_as !== 'ignored');
  tally.decided = counted.length;
  if (counted.length < quorum) {
    const missing = members.filter(undecided);
    if (missing.every(notAsked))
      return {
        outcome: 'abstain',
        detail: `${NO_JUDGE_COMPOSED}: ${missing.length} of ${members.length} jurors not asked`,
        tally,
      };
    return {
      outcome: 'error',
      detail: `no quorum: ${counted.length} of ${members.length} jurors decided (quorum ${quorum}); ${missing.map(why).join('; ')}`,
      tally,
    };
  }
  const passes = counted.filter((v) => v.counted_as === 'pass').length;
  const fails = counted.length - passes;
  let ok: boolean;
  switch (a.rule) {
    case 'majority':
      ok = passes > fails;
      break;
    case 'unanimous':
      ok = fails === 0;
      break;
    case 'any':
      ok = passes > 0;
      break;
    case 'average': {
      const mean = counted.reduce((s, v) => s + (v.score ?? 0), 0) / counted.length;
      tally.value = mean;
      tally.threshold = a.threshold!;
      ok = mean >= a.threshold!;
      break;
    }
    case 'weighted': {
      const total = counted.reduce((s, v) => s + v.weight, 0);
      const share = counted.filter((v) => v.counted_as === 'pass').reduce((s, v) => s + v.weight, 0) / total;
      tally.value = share;
      tally.threshold = a.threshold ?? 0.5;
      ok = share >= tally.threshold;
      break;
    }
  }
  const ignored = tally.votes.length - counted.length;
  const figure = tally.value !== null ? `, ${a.rule} ${tally.value.toFixed(3)} vs threshold ${tally.threshold}` : '';
  return {
    outcome: ok ? 'pass' : 'fail',
    detail: `${a.rule}: ${passes} pass, ${fails} fail${ignored ? `, ${ignored} not counted (error/abstain)` : ''}${figure}`,
    tally,
  };
}

export async function judgeJury(a: JuryAssertion, judgeOne: JudgeOne): Promise<Judgment> {
  const members: Judgment[] = [];
  for (const m of a.judges) members.push(await safely(judgeOne, m));
  const { outcome, detail, tally } = tallyJury(a, members);
  const actual =
    tally.value ?? `${tally.votes.filter((v) => v.counted_as === 'pass').length}/${tally.votes.length} pass`;
  return {
    ...(outcome === 'pass' || outcome === 'fail'
      ? decidedJudgment(a, outcome === 'pass', { actual, expected: a.rule, detail, observed: observedBy(members) })
      : judgment(a, outcome, actual, a.rule, detail)),
    level: a.level,
    members,
    jury: tally,
  };
}

/** Model calls a judge makes: one per judge (not composition) that reads a model. */
function modelCalls(a: Assertion): number {
  return withMembers([a]).filter((x) => traitsOf(x).members(x).length === 0 && reads(x, 'model')).length;
}

interface LlmTotals {
  totals?: { calls: number; input_tokens: number; output_tokens: number };
}

function tokensOf(j: Judgment): { calls: number; tokens: number } {
  const own = (j.llm as LlmTotals | undefined)?.totals;
  const here = own ? { calls: 1, tokens: own.input_tokens + own.output_tokens } : { calls: 0, tokens: 0 };
  for (const m of (j.members ?? []) as Judgment[]) {
    const t = tokensOf(m);
    here.calls += t.calls;
    here.tokens += t.tokens;
  }
  return here;
}

/**
 * Run tiers in order until one decides: `reject-on-any-fail` stops with fail when a judge fails,
 * `accept-on-all-pass` stops with pass when all pass, `final` always ends it. A judge error
 * stops the cascade with error; an abstaining judge never decides anything, so a final tier
 * with neither a fail nor all passes is an error (an abstention when its judges were never asked
 * for want of a judge model). The record names the deciding tier and the model calls the tiers
 * that never ran would have made (tokens saved are estimated from the calls that did run).
 */
export async function judgeCascade(a: CascadeAssertion, judgeOne: JudgeOne): Promise<Judgment> {
  const members: Judgment[] = [];
  let decided: { tier: number; outcome: Outcome; why: string } | null = null;
  for (const [i, tier] of a.tiers.entries()) {
    const js: Judgment[] = [];
    for (const m of tier.judges) js.push(await safely(judgeOne, m));
    members.push(...js);
    const err = js.find((j) => j.outcome === 'error');
    const failed = js.filter((j) => j.outcome === 'fail');
    const allPass = js.every((j) => j.outcome === 'pass');
    const unsure = js.filter((j) => j.outcome === 'abstain');
    if (err) decided = { tier: i, outcome: 'error', why: `${err.name}: ${err.detail}` };
    else if (tier.policy === 'reject-on-any-fail' && failed.length)
      decided = { tier: i, outcome: 'fail', why: `rejected by ${failed.map((j) => j.name).join(', ')}` };
    else if (tier.policy === 'accept-on-all-pass' && allPass)
      decided = { tier: i, outcome: 'pass', why: 'every judge passed' };
    else if (tier.policy === 'final')
      decided = failed.length
        ? { tier: i, outcome: 'fail', why: `failed: ${failed.map((j) => j.name).join(', ')}` }
        : allPass
          ? { tier: i, outcome: 'pass', why: 'every judge passed' }
          : unsure.every(notAsked)
            ? {
                tier: i,
                outcome: 'abstain',
                why: `${NO_JUDGE_COMPOSED}: ${unsure.map((j) => j.name).join(', ')} not asked`,
              }
            : {
                tier: i,
                outcome: 'error',
                why: `undecided: ${unsure.map((j) => `${j.name} abstained (${j.detail})`).join(', ')}`,
              };
    if (decided) break;
  }
  const d = decided!; // the last tier is `final` (schema)
  const skipped = a.tiers.slice(d.tier + 1);
  const savedCalls = skipped.reduce((n, t) => n + t.judges.reduce((m, j) => m + modelCalls(j), 0), 0);
  const spent = members.reduce(
    (acc, m) => {
      const t = tokensOf(m);
      return { calls: acc.calls + t.calls, tokens: acc.tokens + t.tokens };
    },
    { calls: 0, tokens: 0 },
  );
  const record = {
    decided_by_tier: d.tier,
    policy: a.tiers[d.tier].policy,
    tiers_run: d.tier + 1,
    tiers_total: a.tiers.length,
    model_judges_skipped: savedCalls,
    model_calls_made: spent.calls,
    tokens_spent: spent.tokens,
    tokens_saved_estimate:
      savedCalls === 0 ? 0 : spent.calls ? Math.round((spent.tokens / spent.calls) * savedCalls) : null,
    uses_model: a.tiers.map((t) => t.judges.some(needsModel)),
  };
  const actual = `tier ${d.tier + 1} (${record.policy})`;
  const detail = `${d.outcome === 'abstain' ? d.why : `tier ${d.tier + 1}/${a.tiers.length} (${record.policy}) ${d.outcome === 'error' ? 'could not decide' : `decided ${d.outcome}`}: ${d.why}`}; ${savedCalls} model judge call(s) saved`;
  const tierJudgments = members.slice(-a.tiers[d.tier].judges.length);
  return {
    ...(d.outcome === 'pass' || d.outcome === 'fail'
      ? decidedJudgment(a, d.outcome === 'pass', {
          actual,
          expected: 'a decision',
          detail,
          observed: observedBy(tierJudgments),
        })
      : judgment(a, d.outcome, actual, 'a decision', detail)),
    level: a.level,
    members,
    cascade: record,
  };
}

/** Jury and cascade members are judged through the registry like top-level assertions. */
export type JudgeAny = (a: Assertion, ctx: JudgeContext) => Promise<Judgment>;

export const juryKind = (judgeAny: JudgeAny) => (a: JuryAssertion, ctx: JudgeContext) =>
  judgeJury(a, (m) => judgeAny(m, ctx));
export const cascadeKind = (judgeAny: JudgeAny) => (a: CascadeAssertion, ctx: JudgeContext) =>
  judgeCascade(a, (m) => judgeAny(m, ctx));

/** Load-time: deterministic tiers come first, so tokens are spent only when cheap checks cannot decide. */
export function checkCascade(a: CascadeAssertion): string[] {
  const usesModel = a.tiers.map((t) => t.judges.some(needsModel));
  const firstModel = usesModel.indexOf(true);
  return firstModel >= 0 && usesModel.slice(firstModel).includes(false)
    ? [
        'tiers: deterministic tiers must come before tiers with llm judges (tokens are spent only when cheap checks cannot decide)',
      ]
    : [];
}
