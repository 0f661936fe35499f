import { VERDICTS, type Judgment, type Verdict } from '../core/results.js';

export { VERDICTS, type Verdict };

/** What a cell is judged as: every driver's cell is one of the two deterministic phases. */
export type JudgedAs = 'well-behaved' | 'violation';

export interface VerdictInput {
  judgedAs: JudgedAs;
  /** for violation phases: what the scenario expects */
  expectation?: 'detect' | 'defend-or-detect';
  /** memory calls the target refused (tool errors), whoever made them: memeval or an agent */
  refusedCalls: number;
  judgments: Judgment[];
  /** a reason the cell proves nothing although every assertion holds (e.g. no memory call at all) */
  vacuous?: string;
}

export interface VerdictResult {
  verdict: Verdict;
  reason: string;
}

/**
 * Phase verdicts. A well-behaved cell passes only if every memory call was accepted and every
 * assertion holds ("fail" otherwise). A violation cell is defended when the target refused or
 * neutralised it, detected when an assertion caught it, and undetected when it was accepted and
 * nothing caught it under a `detect` expectation. Abstentions never earn a pass on their own.
 */
export function phaseVerdict(input: VerdictInput): VerdictResult {
  // warn-level judgments (llm checks by default) are reported but never decide the verdict
  const v = { ...input, judgments: input.judgments.filter((j) => j.level !== 'warn') };
  const errors = v.judgments.filter((j) => j.outcome === 'error');
  if (errors.length) return { verdict: 'error', reason: `judge error: ${errors.map((j) => `${j.name}: ${j.detail}`).join('; ')}` };
  const failed = v.judgments.filter((j) => j.outcome === 'fail');
  const decided = v.judgments.filter((j) => j.outcome === 'pass' || j.outcome === 'fail');
  if (v.judgedAs === 'well-behaved') {
    if (v.refusedCalls > 0) return { verdict: 'fail', reason: `${v.refusedCalls} well-behaved memory call(s) refused by the target` };
    if (failed.length) return { verdict: 'fail', reason: `assertion(s) failed: ${failed.map((j) => j.name).join(', ')}` };
    if (v.vacuous) return { verdict: 'fail', reason: v.vacuous };
    if (!decided.length) return { verdict: 'error', reason: 'no assertion could be decided (all abstained): nothing was checked' };
    return { verdict: 'pass', reason: 'every assertion holds' };
  }
  if (failed.length) return { verdict: 'detected', reason: `caught by: ${failed.map((j) => j.name).join(', ')}` };
  if (v.refusedCalls > 0) return { verdict: 'defended', reason: `${v.refusedCalls} violation call(s) refused by the target; every assertion holds` };
  if (!decided.length) return { verdict: 'error', reason: 'no assertion could be decided (all abstained): nothing was checked' };
  if (v.expectation === 'defend-or-detect') return { verdict: 'defended', reason: 'violation accepted but neutralised: every assertion holds' };
  return { verdict: 'undetected', reason: 'violation accepted and no assertion failed: the scenario cannot catch it' };
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
