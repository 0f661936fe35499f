import { VERDICTS, type Judgment, type Verdict } from '../core/results.js';
import { decidedOnEvidence } from './judgment.js';

export { VERDICTS, type Verdict };

/** What a cell is judged as: every driver's cell is one of the two deterministic phases. */
export type JudgedAs = 'well-behaved' | 'violation';

export interface VerdictInput {
  judgedAs: JudgedAs;
  /** for violation phases: what the scenario expects */
  expectation?: 'detect' | 'defend-or-detect';
  /** memory calls the target refused (tool errors), whoever made them: memeval or an agent. Fails a well-behaved cell; in a violation only `violationWrites` counts */
  refusedCalls: number;
  judgments: Judgment[];
  /** a reason the cell proves nothing although every assertion holds (e.g. no memory call at all) */
  vacuous?: string;
  /**
   * How servers of the cell failed when stopped (a crash at shutdown, a store lost at exit). The
   * store copy is then one nobody can vouch for: no verdict that reads it as clean may stand.
   */
  shutdown?: string[];
  /**
   * for violation phases: every memory write call of the phase (memeval's steps or the agent's
   * calls) and whether the target refused it. Absent in an input that did not record them: such
   * an input cannot earn `defended`.
   */
  violationWrites?: ViolationWrite[];
  /**
   * Provider faults the scenario asked for in this phase that the provider never served (the
   * target never sent the request they were meant for). The cell then did not test what the
   * scenario is about: its verdict is `error`, whatever the assertions said.
   */
  unservedFaults?: string[];
}

/** One write call of a violation phase, as recorded at the recording point. */
export interface ViolationWrite {
  /** the call's row (`seq`) in the evidence `calls` table */
  seq: number;
  op: string;
  tool: string;
  refused: boolean;
}

const nameWrites = (ws: ViolationWrite[]) => ws.map((w) => `${w.tool} (${w.op}, calls.seq ${w.seq})`).join(', ');

export interface VerdictResult {
  verdict: Verdict;
  reason: string;
}

/**
 * Phase verdicts. A well-behaved cell passes only if every memory call was accepted and every
 * assertion holds ("fail" otherwise). Every decided judgment must name what it observed, or
 * the cell is `error`. A violation cell is detected when an assertion caught it;
 * `defended` must be earned: every assertion targeting the violation decided and holds, and a
 * violating write was refused, or (under `defend-or-detect`) went in and left nothing the
 * assertions catch. Accepted and caught by nothing under `detect` is undetected. Abstentions
 * never earn a pass or a defence. A server that crashed when stopped, or lost its store at exit,
 * leaves a store nobody can vouch for: a verdict that speaks for the target (pass, defended,
 * detected) then becomes `error` naming the shutdown; fail and undetected stand. A cell in
 * which a provider fault the scenario asked for was never served is `error` whatever the
 * assertions said: they did not judge what the scenario is about. A precondition (a guard
 * assertion, `precondition: true`) that fails makes the cell `error` in either phase, never
 * fail or detected (only a refused well-behaved call, which memeval saw itself, still fails it);
 * one that abstained was never established and counts as not holding; one that holds counts for nothing: a cell passes or is defended on its checks alone. A fail
 * that says it observed nothing of what it checks (`not_observed`: a rank over a recall that
 * returned nothing) fails a well-behaved cell but catches no violation: alone, it is `error`.
 */
export function phaseVerdict(input: VerdictInput): VerdictResult {
  const v = assertionVerdict(input);
  // every verdict, a failing one too: what the assertions found is not about the fault the
  // scenario is about (a server that dropped the memory before asking for its embedding)
  if (input.unservedFaults?.length && v.verdict !== 'error')
    return {
      verdict: 'error',
      reason: `provider fault(s) never served: ${input.unservedFaults.join(', ')}; the target sent no request they match, so how it handles the fault was not tested (the assertions alone said ${v.verdict}: ${v.reason})`,
    };
  if (!input.shutdown?.length) return v;
  // an error stands, but names the shutdown too: it may be why the check saw nothing
  if (v.verdict === 'error') return { verdict: 'error', reason: `${v.reason}; and ${input.shutdown.join('; ')}` };
  if (!['pass', 'defended', 'detected'].includes(v.verdict)) return v;
  return {
    verdict: 'error',
    reason: `${input.shutdown.join('; ')} (the assertions alone said ${v.verdict}: ${v.reason})`,
  };
}

function assertionVerdict(input: VerdictInput): VerdictResult {
  // warn-level judgments (llm checks by default) are reported but never decide the verdict
  const v = { ...input, judgments: input.judgments.filter((j) => j.level !== 'warn') };
  // a store that does not open, observed by an integrity judge: the judges that could not read
  // it because of that are its consequence, not a reason the cell could not be judged
  const storeBroken = v.judgments.some((j) => j.kind === 'integrity' && j.outcome === 'fail' && decidedOnEvidence(j));
  const errors = v.judgments.filter((j) => j.outcome === 'error' && !(storeBroken && j.store_unreadable));
  if (errors.length)
    return { verdict: 'error', reason: `judge error: ${errors.map((j) => `${j.name}: ${j.detail}`).join('; ')}` };
  // a pass or fail must rest on what its judge observed: otherwise a check that read nothing
  // would pass a target, or (in a violation phase) read as the violation caught
  const unobserved = v.judgments.filter((j) => (j.outcome === 'pass' || j.outcome === 'fail') && !decidedOnEvidence(j));
  if (unobserved.length)
    return {
      verdict: 'error',
      reason: `assertion(s) decided without naming what they observed: ${unobserved.map((j) => `${j.name} (${j.outcome})`).join(', ')} (a judgment kept from an older memeval, or a judge that read nothing): nothing decided can be trusted`,
    };
  // a precondition guards the checks: failing, it says they could not test what they are about,
  // so nothing they found is a fail or a catch; holding, it checked nothing itself, so never a pass
  const checks = v.judgments.filter((j) => !j.precondition);
  // a guard that abstained was never established either: its checks are no more a fail or a catch
  const unmet = v.judgments.filter((j) => j.precondition && (j.outcome === 'fail' || j.outcome === 'abstain'));
  const failed = checks.filter((j) => j.outcome === 'fail');
  const decided = checks.filter((j) => j.outcome === 'pass' || j.outcome === 'fail');
  const unmetReason = (): VerdictResult => {
    const broken = unmet.filter((j) => j.outcome === 'fail');
    const unsettled = unmet.filter((j) => j.outcome === 'abstain');
    // "did not hold" only for a guard that observed its failure (selftest reads it as the hostility met)
    const parts = [
      broken.length && `the scenario's precondition did not hold: ${broken.map(unmetWords).join('; ')}`,
      unsettled.length &&
        `the scenario's precondition could not be established: ${unsettled.map((j) => `${j.name} abstained (${j.detail})`).join('; ')}`,
    ].filter(Boolean);
    return {
      verdict: 'error',
      reason: `${parts.join('; ')}; what the other assertions found${failed.length ? ` (${failed.map((j) => j.name).join(', ')} failed)` : ''} was not judged`,
    };
  };
  if (v.judgedAs === 'well-behaved') {
    // the target refused a call: observed by memeval itself, whatever any precondition says
    if (v.refusedCalls > 0)
      return { verdict: 'fail', reason: `${v.refusedCalls} well-behaved memory call(s) refused by the target` };
    if (unmet.length) return unmetReason();
    if (failed.length)
      return { verdict: 'fail', reason: `assertion(s) failed: ${failed.map((j) => j.name).join(', ')}` };
    if (v.vacuous) return { verdict: 'fail', reason: v.vacuous };
    if (!decided.length)
      return { verdict: 'error', reason: 'no assertion could be decided (all abstained): nothing was checked' };
    // a check the scenario says decides the verdict, and that was not made, cannot be passed over
    const skipped = v.judgments.filter((j) => j.outcome === 'abstain');
    if (skipped.length)
      return {
        verdict: 'error',
        reason: `assertion(s) abstained: ${skipped.map((j) => (j.detail ? `${j.name} (${j.detail})` : j.name)).join('; ')}; a cell passes only when every assertion decides`,
      };
    return { verdict: 'pass', reason: 'every assertion holds' };
  }
  if (unmet.length) return unmetReason();
  // a fail that saw nothing of what it checks (a rank over an empty recall) caught nothing
  const caught = failed.filter((j) => typeof j.not_observed !== 'string');
  if (caught.length) return { verdict: 'detected', reason: `caught by: ${caught.map((j) => j.name).join(', ')}` };
  if (failed.length)
    return {
      verdict: 'error',
      reason: `assertion(s) failed without observing the violation: ${failed.map((j) => `${j.name} (${String(j.not_observed)})`).join('; ')}; nothing caught it`,
    };
  if (!decided.length)
    return { verdict: 'error', reason: 'no assertion could be decided (all abstained): nothing was checked' };
  const abstained = v.judgments.filter((j) => j.outcome === 'abstain');
  if (abstained.length)
    return {
      verdict: 'error',
      reason: `assertion(s) targeting the violation abstained: ${abstained.map((j) => (j.detail ? `${j.name} (${j.detail})` : j.name)).join('; ')}; a violation is judged only when every one decides`,
    };
  if (!v.violationWrites)
    return {
      verdict: 'error',
      reason:
        'the verdict input does not record which violating writes the target refused: nothing can be called defended',
    };
  const refused = v.violationWrites.filter((w) => w.refused);
  if (refused.length)
    return {
      verdict: 'defended',
      reason: `violating write(s) refused by the target: ${nameWrites(refused)}; every assertion holds`,
    };
  if (v.expectation === 'defend-or-detect') {
    if (!v.violationWrites.length)
      return {
        verdict: 'error',
        reason: 'the violation phase made no memory write: there was nothing to neutralise, so nothing was defended',
      };
    return {
      verdict: 'defended',
      reason: `violation accepted (${nameWrites(v.violationWrites)}) but neutralised: every assertion targeting it decided and holds`,
    };
  }
  return { verdict: 'undetected', reason: 'violation accepted and no assertion failed: the scenario cannot catch it' };
}

/** A failed guard as a reader needs it: what it found against what it needed, else its detail. */
function unmetWords(j: Judgment): string {
  const scalar = (x: unknown) => typeof x === 'number' || typeof x === 'string';
  if (scalar(j.actual) && scalar(j.expected))
    return `${j.name} (got ${String(j.actual)}, expected ${String(j.expected)})`;
  return j.detail ? `${j.name} (${j.detail})` : j.name;
}

/** Does this verdict fail the run? `detected` does only where the target claims the defence. */
export function failsRun(verdict: Verdict, claimed: boolean): boolean {
  switch (verdict) {
    case 'fail':
    case 'undetected':
    case 'invalid':
    case 'error':
      return true;
    case 'detected':
      return claimed;
    default:
      return false;
  }
}
