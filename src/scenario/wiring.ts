import { checkProviderFaults } from './fault-checks.js';
import { checkKills } from './kill-checks.js';
import { traitsOf } from './kinds.js';
import { flatSteps, type Scenario } from './schema.js';
import { createdRef, startsNewSession } from './step-ops.js';

/**
 * Cross-field checks zod cannot express: every assertion must be able to run in some
 * phase the scenario has, and names must be unique so reports can refer to them.
 */
export function checkWiring(scenario: Scenario): string[] {
  const problems: string[] = [];
  const names = new Set<string>();
  scenario.assertions.forEach((a, i) => {
    if (names.has(a.name)) problems.push(`assertions[${i}].name: "${a.name}" is used twice; names must be unique`);
    names.add(a.name);
    if (a.phase === 'violation' && !scenario.deterministic.violation)
      problems.push(
        `assertions[${i}].phase: "violation" but the scenario has no violation phase (deterministic.violation is null)`,
      );
    if (a.phase === 'real-model' && !scenario.real_model)
      problems.push(`assertions[${i}].phase: "real-model" but the scenario has no real_model block`);
    const wrongPhase = traitsOf(a).phaseProblem(a);
    if (wrongPhase) problems.push(`assertions[${i}].phase: ${wrongPhase}`);
  });
  if (
    scenario.deterministic.violation &&
    !scenario.assertions.some((a) => a.phase === 'both' || a.phase === 'violation')
  )
    problems.push('assertions: no assertion applies to the violation phase, so it could never be detected');
  // the scripted model plays one restart-separated part of a script per agent session: a
  // mismatch would silently merge parts or leave sessions with nothing to do
  const rm = scenario.real_model;
  if (rm) {
    const scripts: [string, { op: string }[] | undefined][] = [
      ['deterministic.well_behaved', scenario.deterministic.well_behaved],
      ['deterministic.violation.steps', scenario.deterministic.violation?.steps],
    ];
    for (const [field, steps] of scripts) {
      if (!steps) continue;
      const parts = steps.filter(startsNewSession).length + 1;
      if (parts !== rm.sessions.length)
        problems.push(
          `${field}: ${parts} session(s) (${parts - 1} restart step(s)) but real_model.sessions has ${rm.sessions.length}; the scripted model plays one restart-separated part per agent session: make them match`,
        );
    }
  }
  scenario.setup.files.forEach((f, i) => {
    if (f.path.startsWith('/') || f.path.split(/[\\/]/).includes('..'))
      problems.push(
        `setup.files[${i}].path: "${f.path}" must be a relative path inside the fixture project (no leading / and no ..)`,
      );
  });
  const refs = new Set([
    ...scenario.setup.memories.map((m) => m.ref),
    ...flatSteps([...scenario.deterministic.well_behaved, ...(scenario.deterministic.violation?.steps ?? [])]).flatMap(
      (st) => createdRef(st) ?? [],
    ),
  ]);
  const checkRef = (text: string, field: string) => {
    const m = /^\$ref:(.*)$/.exec(text);
    if (m && !refs.has(m[1]!))
      problems.push(
        `${field}: "${text}" names no setup memory or remember step ref (known: ${[...refs].join(', ') || 'none'})`,
      );
  };
  scenario.setup.similarity.forEach((s, i) => {
    checkRef(s.a, `setup.similarity[${i}].a`);
    checkRef(s.b, `setup.similarity[${i}].b`);
  });
  scenario.provider?.rules.forEach((r, i) => {
    (Array.isArray(r.contains) ? r.contains : [r.contains]).forEach((c) =>
      checkRef(c, `provider.rules[${i}].contains`),
    );
    if (r.phase === 'violation' && !scenario.deterministic.violation)
      problems.push(`provider.rules[${i}].phase: "violation" but the scenario has no violation phase`);
  });
  problems.push(...checkProviderFaults(scenario, checkRef));
  problems.push(...checkKills(scenario));
  return problems;
}
