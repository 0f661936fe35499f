import { assertionApplies, type Assertion, type Comparator, type Scenario } from './schema.js';

/** Does 0 (what a count over an empty store gives) satisfy `op value`? */
function zeroSatisfies(op: Comparator, value: number): boolean {
  return { eq: 0 === value, ne: 0 !== value, gt: 0 > value, gte: 0 >= value, lt: 0 < value, lte: 0 <= value }[op];
}

/**
 * A well-behaved phase must give the target something to do. A phase with no call at all (no
 * step but `restart`, no setup memory, no setup step) is judged only by assertions over a
 * store nobody wrote: a target that refuses every call, or keeps nothing, passes it. Such a
 * scenario is refused at load time. (A phase that does call the target fails a refusing target
 * through its refused calls, and seeded memories are checked after seeding.)
 */
export function checkWellBehavedExercises(scenario: Scenario): string[] {
  const calls = (steps: { op: string }[]) => steps.some((st) => st.op !== 'restart' && st.op !== 'advance_clock');
  if (calls(scenario.deterministic.well_behaved) || calls(scenario.setup.steps) || scenario.setup.memories.length)
    return [];
  return [
    'deterministic.well_behaved: the well-behaved phase calls the target nothing (no step but restart, no setup memory or step), so a target that refuses every call or keeps nothing passes it; ' +
      'add a write a well-behaved target must store and an assertion that it was, e.g. { op: "remember", content: "User prefers vitest" } with ' +
      '{ kind: "count", name: "kept", phase: "well-behaved", contains: "vitest", op: "eq", value: 1 }',
  ];
}

/**
 * Does this assertion hold whatever the target does when nothing is stored? Such an assertion
 * cannot tell a target that keeps what it is given from one that drops it. Judges whose result
 * cannot be known without running (llm, sql other than a count that 0 satisfies) count as able
 * to fail.
 */
export function holdsOnEmptyStore(a: Assertion): boolean {
  switch (a.kind) {
    case 'absent':
      return true;
    case 'count':
    case 'sql':
      return typeof a.value === 'number' && zeroSatisfies(a.op, a.value);
    case 'recall':
      return a.contains === undefined;
    case 'rank':
      return a.memory === undefined;
    case 'file':
      return a.exists === false;
    case 'called':
    case 'budget':
      return true; // calls and the agent's spend are counted whether or not anything was kept
    case 'transcript':
    case 'llm':
    case 'command':
    case 'plugin':
      return false;
    case 'jury':
      return a.judges.every(holdsOnEmptyStore);
    case 'cascade':
      return a.tiers.every((t) => t.judges.every(holdsOnEmptyStore));
  }
}

/** Would a target that accepts every write and keeps nothing fail this scenario's well-behaved phase? */
export function wellBehavedCatchesBlackhole(scenario: Scenario): boolean {
  if (scenario.setup.memories.length) return true; // seeds are checked in the store after seeding
  return scenario.assertions.some(
    (a) => assertionApplies(a, 'well-behaved') && !('level' in a && a.level === 'warn') && !holdsOnEmptyStore(a),
  );
}
