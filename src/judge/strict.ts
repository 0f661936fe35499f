import type { Assertion } from '../scenario/schema.js';
import { needsModel } from '../scenario/kinds.js';
import type { JudgeStrictness } from './llm/pool.js';

/**
 * --judge-level fail: each top-level assertion that asks a model (an llm check, or a jury or
 * cascade with an llm judge among its members) at level warn decides the verdict as if declared
 * at level fail. Only the level changes; what is judged and how stays the scenario's.
 */
export function promoteLevels(assertions: Assertion[], strict: JudgeStrictness | undefined): Assertion[] {
  if (strict?.level !== 'fail') return assertions;
  return assertions.map((a) => ('level' in a && a.level === 'warn' && needsModel(a) ? { ...a, level: 'fail' } : a));
}
