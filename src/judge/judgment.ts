import type { Judgment, Outcome } from '../core/results.js';
import type { Assertion } from '../scenario/schema.js';

export type { Judgment, Outcome };

type Named = Pick<Assertion, 'name' | 'kind' | 'phase'>;

/** A judgment that decided nothing: it could not be made (`error`) or was not made (`abstain`). */
export function judgment(
  a: Named,
  outcome: 'error' | 'abstain',
  actual: unknown,
  expected: unknown,
  detail = '',
): Judgment {
  return { name: a.name, kind: a.kind, phase: a.phase, outcome, passed: null, actual, expected, detail };
}

/**
 * A decided judgment. `observed` names the positive evidence the decision rests on (what the
 * kind's record says it must have read: scenario/kinds.ts `observes`); the type makes every
 * judge say it, and the verdict refuses a decision without it.
 */
export function decided(
  a: Named,
  holds: boolean,
  o: { actual: unknown; expected: unknown; detail?: string; observed: string },
): Judgment {
  return {
    name: a.name,
    kind: a.kind,
    phase: a.phase,
    outcome: holds ? 'pass' : 'fail',
    passed: holds,
    actual: o.actual,
    expected: o.expected,
    detail: o.detail ?? '',
    observed: o.observed,
  };
}

// in core/ (a leaf) so a cell's stages read it too
export { decidedOnEvidence } from '../core/results.js';
