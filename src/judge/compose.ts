import type { Assertion, CascadeAssertion, JuryAssertion } from '../scenario/schema.js';
import { needsModel } from '../scenario/schema.js';
import { judgment, type Judgment, type Outcome } from './judgment.js';
import type { Score } from './score.js';

/** Judges one member assertion; never throws (an exception is the member's `error`). */
export type JudgeOne = (a: Assertion) => Promise<Judgment>;

export async function safely(judgeOne: JudgeOne, a: Assertion): Promise<Judgment> {
  try {
    return await judgeOne(a);
  } catch (e) {
    return judgment(a, 'error', null, null, (e as Error).message);
  }
}

/** A member's score on 0..1: numeric scores are normalised by their bounds, others are pass = 1, fail = 0. */
export function normalisedScore(j: Judgment): number | null {
  const s = j.score as Score | undefined;
  if (s?.type === 'numeric' && s.value !== null) return (s.value - s.min) / (s.max - s.min);
  if (j.outcome === 'pass') return 1;
  if (j.outcome === 'fail') return 0;
  return null;
}

interface Tally {
  votes: { name: string; outcome: Outcome; counted_as: 'pass' | 'fail' | 'ignored'; weight: number; score: number | null }[];
  rule: string;
  value: number | null;
  threshold: number | null;
}

/**
 * Combine the jurors' judgments under the jury's rule. An error or abstain vote counts as the
 * jury's `errors`/`abstentions` setting says: as a fail vote, not at all, or as the jury's own
 * error/abstention. With no vote left to count, the jury abstains.
 */
export function tallyJury(a: JuryAssertion, members: Judgment[]): { outcome: Outcome; detail: string; tally: Tally } {
  const weights = a.weights ?? members.map(() => 1);
  const tally: Tally = { votes: [], rule: a.rule, value: null, threshold: null };
  for (const [i, m] of members.entries()) {
    const bad = m.outcome === 'error' ? a.errors : m.outcome === 'abstain' ? a.abstentions : null;
    if (bad === 'error') {
      return { outcome: m.outcome === 'error' ? 'error' : 'abstain', detail: `juror ${m.name} ${m.outcome === 'error' ? 'errored' : 'abstained'}: ${m.detail}`, tally };
    }
    const counted = bad === 'ignore' ? 'ignored' : bad === 'fail' ? 'fail' : (m.outcome as 'pass' | 'fail');
    tally.votes.push({ name: m.name, outcome: m.outcome, counted_as: counted, weight: weights[i], score: counted === 'ignored' ? null : counted === 'fail' && m.outcome !== 'fail' ? 0 : normalisedScore(m) });
  }
  const counted = tally.votes.filter((v) => v.counted_as !== 'ignored');
  if (!counted.length) return { outcome: 'abstain', detail: 'no juror cast a countable vote', tally };
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
  return { outcome: ok ? 'pass' : 'fail', detail: `${a.rule}: ${passes} pass, ${fails} fail${ignored ? `, ${ignored} ignored` : ''}${figure}`, tally };
}

export async function judgeJury(a: JuryAssertion, judgeOne: JudgeOne): Promise<Judgment> {
  const members: Judgment[] = [];
  for (const m of a.judges) members.push(await safely(judgeOne, m));
  const { outcome, detail, tally } = tallyJury(a, members);
  return { ...judgment(a, outcome, tally.value ?? `${tally.votes.filter((v) => v.counted_as === 'pass').length}/${tally.votes.length} pass`, a.rule, detail), level: a.level, members, jury: tally };
}

function modelCalls(a: Assertion): number {
  if (a.kind === 'llm') return 1;
  if (a.kind === 'jury') return a.judges.reduce((n, j) => n + modelCalls(j), 0);
  if (a.kind === 'cascade') return a.tiers.reduce((n, t) => n + t.judges.reduce((m, j) => m + modelCalls(j), 0), 0);
  return 0;
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
 * `accept-on-all-pass` stops with pass when all pass, `final` always decides. A judge error
 * stops the cascade with error. The record names the deciding tier and the model calls the
 * tiers that never ran would have made (tokens saved are estimated from the calls that did run).
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
    if (err) decided = { tier: i, outcome: 'error', why: `${err.name}: ${err.detail}` };
    else if (tier.policy === 'reject-on-any-fail' && failed.length) decided = { tier: i, outcome: 'fail', why: `rejected by ${failed.map((j) => j.name).join(', ')}` };
    else if (tier.policy === 'accept-on-all-pass' && allPass) decided = { tier: i, outcome: 'pass', why: 'every judge passed' };
    else if (tier.policy === 'final')
      decided = failed.length
        ? { tier: i, outcome: 'fail', why: `failed: ${failed.map((j) => j.name).join(', ')}` }
        : allPass
          ? { tier: i, outcome: 'pass', why: 'every judge passed' }
          : { tier: i, outcome: 'abstain', why: `undecided: ${js.filter((j) => j.outcome === 'abstain').map((j) => j.name).join(', ')} abstained` };
    if (decided) break;
  }
  const d = decided!; // the last tier is `final` (schema)
  const skipped = a.tiers.slice(d.tier + 1);
  const savedCalls = skipped.reduce((n, t) => n + t.judges.reduce((m, j) => m + modelCalls(j), 0), 0);
  const spent = members.reduce((acc, m) => {
    const t = tokensOf(m);
    return { calls: acc.calls + t.calls, tokens: acc.tokens + t.tokens };
  }, { calls: 0, tokens: 0 });
  const record = {
    decided_by_tier: d.tier,
    policy: a.tiers[d.tier].policy,
    tiers_run: d.tier + 1,
    tiers_total: a.tiers.length,
    model_judges_skipped: savedCalls,
    model_calls_made: spent.calls,
    tokens_spent: spent.tokens,
    tokens_saved_estimate: savedCalls === 0 ? 0 : spent.calls ? Math.round((spent.tokens / spent.calls) * savedCalls) : null,
    uses_model: a.tiers.map((t) => t.judges.some(needsModel)),
  };
  return {
    ...judgment(a, d.outcome, `tier ${d.tier + 1} (${record.policy})`, 'a decision', `tier ${d.tier + 1}/${a.tiers.length} (${record.policy}) decided ${d.outcome}: ${d.why}; ${savedCalls} model judge call(s) saved`),
    level: a.level,
    members,
    cascade: record,
  };
}
