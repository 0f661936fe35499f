import { assertionApplies, type Scenario } from './schema.js';
import { holdsOnEmptyStore } from './kinds.js';
import { callsTarget } from './step-ops.js';

/**
 * A well-behaved phase must give the target something to do. A phase with no call at all (no
 * step but `restart`, no setup memory, no setup step) is judged only by assertions over a
 * store nobody wrote: a target that refuses every call, or keeps nothing, passes it. Such a
 * scenario is refused at load time. (A phase that does call the target fails a refusing target
 * through its refused calls, and seeded memories are checked after seeding.)
 */
export function checkWellBehavedExercises(scenario: Scenario): string[] {
  const calls = (steps: { op: string }[]) => steps.some(callsTarget);
  if (calls(scenario.deterministic.well_behaved) || calls(scenario.setup.steps) || scenario.setup.memories.length)
    return [];
  return [
    'deterministic.well_behaved: the well-behaved phase calls the target nothing (no step but restart, no setup memory or step), so a target that refuses every call or keeps nothing passes it; ' +
      'add a write a well-behaved target must store and an assertion that it was, e.g. { op: "remember", content: "User prefers vitest" } with ' +
      '{ kind: "count", name: "kept", phase: "well-behaved", contains: "vitest", op: "eq", value: 1 }',
  ];
}

/** Would a target that accepts every write and keeps nothing fail this scenario's well-behaved phase? */
export function wellBehavedCatchesBlackhole(scenario: Scenario): boolean {
  if (scenario.setup.memories.length) return true; // seeds are checked in the store after seeding
  return scenario.assertions.some(
    (a) => assertionApplies(a, 'well-behaved') && !('level' in a && a.level === 'warn') && !holdsOnEmptyStore(a),
  );
}
