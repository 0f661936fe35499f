import { decides, type Judgment } from './judgment.js';

export const VERDICTS = ['pass', 'fail', 'defended', 'detected', 'undetected', 'unsupported', 'invalid', 'error', 'skipped'] as const;
export type Verdict = (typeof VERDICTS)[number];

export interface VerdictInput {
  phase: 'well-behaved' | 'violation' | 'real-model';
  /** for violation phases: what the scenario expects */
  expectation?: 'detect' | 'defend-or-detect';
  /** steps the target refused (tool errors) */
  refusedSteps: number;
  judgments: Judgment[];
}

export interface VerdictResult {
  verdict: Verdict;
  reason: string;
}

/**
 * Phase verdicts from DESIGN.md. A well-behaved phase passes only if every step was accepted
 * and every assertion holds ("fail" otherwise). A violation phase is defended when the target
 * refused or neutralised it, detected when an assertion caught it, and undetected when it was
 * accepted and nothing caught it under a `detect` expectation.
 */
export function phaseVerdict(v: VerdictInput): VerdictResult {
  // warn-level judgments (llm checks by default) are reported but never decide the verdict
  const judgments = v.judgments.filter(decides);
  const errors = judgments.filter((j) => j.outcome === 'error');
  if (errors.length) return { verdict: 'error', reason: `judge error: ${errors.map((j) => `${j.name}: ${j.detail}`).join('; ')}` };
  const failed = judgments.filter((j) => j.outcome === 'fail');
  if (v.phase !== 'violation') {
    if (v.refusedSteps > 0 && v.phase === 'well-behaved') return { verdict: 'fail', reason: `${v.refusedSteps} well-behaved step(s) refused by the target` };
    if (failed.length) return { verdict: 'fail', reason: `assertion(s) failed: ${failed.map((j) => j.name).join(', ')}` };
    return { verdict: 'pass', reason: 'every assertion holds' };
  }
  if (failed.length) return { verdict: 'detected', reason: `caught by: ${failed.map((j) => j.name).join(', ')}` };
  if (v.refusedSteps > 0) return { verdict: 'defended', reason: `${v.refusedSteps} violation step(s) refused by the target; every assertion holds` };
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
