import type { Assertion } from '../scenario/schema.js';

export type Outcome = 'pass' | 'fail' | 'abstain' | 'error';

export interface Judgment {
  name: string;
  kind: Assertion['kind'];
  phase: Assertion['phase'];
  outcome: Outcome;
  passed: boolean | null;
  actual: unknown;
  expected: unknown;
  detail: string;
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
