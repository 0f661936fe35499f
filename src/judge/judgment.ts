import type { Judgment, Outcome } from '../core/results.js';
import type { Assertion } from '../scenario/schema.js';

export type { Judgment, Outcome };

export function judgment(
  a: Pick<Assertion, 'name' | 'kind' | 'phase'>,
  outcome: Outcome,
  actual: unknown,
  expected: unknown,
  detail = '',
): Judgment {
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
