import { reads, traitsOf, withMembers } from './kinds.js';
import { refName } from './refs.js';
import type { Scenario, Step } from './schema.js';
import { actedOnRef, createdRef, writes } from './step-ops.js';

/** A step that writes: a write op, or a parallel step with one. */
const isWrite = (s: Step | undefined): boolean =>
  s !== undefined && (s.op === 'parallel' ? s.steps.some((x) => writes(x.op)) : writes(s.op));

/**
 * Where a `kill` step may stand, checked before anything runs (exit 3 naming the field and the
 * fix): `after: "ack"` right after a write (or first, after setup memories were seeded);
 * `during` right before the write it kills during (`bytes`: one write, not a parallel step;
 * a parallel step on one session). A memory the in-flight write makes may never have been
 * acknowledged, so no later step or assertion may name its ref.
 */
export function checkKills(scenario: Scenario): string[] {
  const problems: string[] = [];
  const sequences: [string, Step[]][] = [
    ['setup.steps', scenario.setup.steps],
    ['deterministic.well_behaved', scenario.deterministic.well_behaved],
    ['deterministic.violation.steps', scenario.deterministic.violation?.steps ?? []],
  ];
  const assertionRefs = withMembers(scenario.assertions).flatMap((a) =>
    traitsOf(a)
      .refs(a)
      .flatMap(([, v]) => (v ? [refName(v) ?? v] : [])),
  );
  for (const [field, steps] of sequences)
    steps.forEach((s, i) => {
      if (s.op !== 'kill') return;
      const at = `${field}[${i}]`;
      if (s.after !== undefined) {
        // first in a phase: the phase runs on the session setup left, so a write as setup's last
        // step comes right before it, as the seeding of setup.memories does
        const setupLast = field === 'setup.steps' ? undefined : scenario.setup.steps.at(-1);
        const before = i ? steps[i - 1] : setupLast;
        const afterSeeds = i === 0 && scenario.setup.memories.length > 0;
        if (!isWrite(before) && !afterSeeds)
          problems.push(
            `${at}.after: a kill after "ack" kills right after a write was answered, but ${before ? `the step before it is ${before.op}${i ? '' : ` (setup.steps[${scenario.setup.steps.length - 1}])`}` : 'nothing was written before it'}: put it right after a remember, update, forget or parallel write (or use during)`,
          );
        return;
      }
      const next = steps[i + 1];
      if (!isWrite(next)) {
        problems.push(
          `${at}.during: a kill "during" kills while the next step is in flight, so the next step must be a write (remember, update, forget, or a parallel step with one), but it is ${next ? next.op : 'missing'}: put the write right after the kill`,
        );
        return;
      }
      if (next!.op === 'parallel') {
        if (typeof s.during === 'object')
          problems.push(
            `${at}.during.bytes: counts the bytes of one request, and the next step is a parallel step of ${next!.steps.length}: use during: "write" to kill during a burst, or follow it with one write`,
          );
        if (next!.sessions !== 1)
          problems.push(
            `${field}[${i + 1}].sessions: a kill during a parallel step kills its one session; with ${next!.sessions} sessions the others would run on: give the parallel step sessions: 1`,
          );
      }
      const inFlight = (next!.op === 'parallel' ? next!.steps : [next!]).flatMap((x) => createdRef(x) ?? []);
      for (const ref of inFlight) {
        const later = steps
          .slice(i + 2)
          .findIndex((x) => (x.op === 'parallel' ? x.steps : [x]).some((y) => refName(actedOnRef(y) ?? '') === ref));
        if (later !== -1 || assertionRefs.includes(ref))
          problems.push(
            `${field}[${i + 1}]: the memory "${ref}" is written while the server is killed and may never be acknowledged, but ${later !== -1 ? `${field}[${i + 2 + later}]` : 'an assertion'} names $ref:${ref}: name a memory written before the kill, or check the in-flight write with a durable assertion`,
          );
      }
    });
  return problems;
}

/**
 * Why the agent layer cannot run this scenario, if it cannot: an agent decides its own calls, so
 * memeval cannot put a kill among them (nor right after an answer the agent has not yet seen),
 * and a kill op for agents is not needed: what a kill does to the store is the server's, the
 * same under any client. A `durable` judge reads memeval's own record of the writes it issued,
 * which an agent's phase does not have.
 */
export function agentLayerUnsupported(scenario: Scenario): string | undefined {
  const { well_behaved, violation } = scenario.deterministic;
  if ([...well_behaved, ...(violation?.steps ?? [])].some((s) => s.op === 'kill'))
    return 'the scenario kills the server at a point among its calls, which the agent layer cannot place among an agent’s own calls (the deterministic layer runs it)';
  if (withMembers(scenario.assertions).some((a) => reads(a, 'writes')))
    return "a durable assertion reads memeval's record of the writes it issued, and in the agent layer the agent issues them";
  return undefined;
}
