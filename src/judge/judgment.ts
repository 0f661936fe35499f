import type { Assertion } from '../scenario/schema.js';

export type Outcome = 'pass' | 'fail' | 'abstain' | 'error';

/** A judgment's score: pass/fail, a number against a threshold, or a category. */
export type Score =
  | { type: 'boolean'; value: boolean | null }
  | { type: 'numeric'; value: number | null; min: number; max: number; threshold: number }
  | { type: 'categorical'; value: string | null; passing: string[] };

export interface Judgment {
  name: string;
  kind: Assertion['kind'];
  phase: Assertion['phase'];
  outcome: Outcome;
  passed: boolean | null;
  actual: unknown;
  expected: unknown;
  detail: string;
  /** `warn` judgments are reported but never decide a verdict; absent means `fail` */
  level?: 'warn' | 'fail';
  score?: Score;
  reasoning?: string;
  /** llm judges: the calls made, what was shown, the totals */
  llm?: unknown;
  /** jury and cascade: their members' judgments and how they were combined */
  members?: Judgment[];
  jury?: unknown;
  cascade?: unknown;
}

export function judgment(a: Assertion, outcome: Outcome, actual: unknown, expected: unknown, detail = ''): Judgment {
  return {
    name: a.name,
    kind: a.kind,
    phase: a.phase,
    outcome,
    passed: outcome === 'pass' ? true : outcome === 'fail' ? false : null,
    actual,
    expected,
    detail,
  };
}

/** Does this judgment take part in the cell's verdict? `warn` judgments are reported only. */
export function decides(j: Pick<Judgment, 'level'>): boolean {
  return j.level !== 'warn';
}
