import { EMBEDDING_ONLY_FAULTS, type Scenario } from './schema.js';

/**
 * Cross-field checks of `provider.faults` zod cannot express: a fault's settings must fit its
 * kind and the requests it can hit, names must be unique (the evidence and the served-fault
 * check name faults by them), and a violation-only fault needs a violation phase.
 * `checkRef` reports a `$ref:` that names no memory.
 */
export function checkProviderFaults(scenario: Scenario, checkRef: (text: string, field: string) => void): string[] {
  const problems: string[] = [];
  const names = new Map<string, number>();
  (scenario.provider?.faults ?? []).forEach((f, i) => {
    const at = `provider.faults[${i}]`;
    const name = faultName(f, i);
    const first = names.get(name);
    if (first !== undefined)
      problems.push(
        `${at}.name: "${name}" is also the name of provider.faults[${first}]; give each fault its own name`,
      );
    else names.set(name, i);
    if (EMBEDDING_ONLY_FAULTS.has(f.fault) && f.on !== 'embeddings')
      problems.push(
        `${at}.on: "${f.on}" but ${f.fault} is a fault of an embedding response; set on to "embeddings" (or use http-500, malformed-json or timeout for chat)`,
      );
    if (f.retry_after !== undefined && f.fault !== 'http-429' && f.fault !== 'http-500')
      problems.push(`${at}.retry_after: only an http-429 or http-500 fault sends Retry-After; remove it`);
    if (f.dimensions !== undefined && f.fault !== 'wrong-dimension')
      problems.push(`${at}.dimensions: only a wrong-dimension fault serves another vector size; remove it`);
    if (f.phase === 'violation' && !scenario.deterministic.violation)
      problems.push(
        `${at}.phase: "violation" but the scenario has no violation phase (deterministic.violation is null)`,
      );
    if (f.stage === 'setup' && !scenario.setup.memories.length && !scenario.setup.steps.length)
      problems.push(
        `${at}.stage: "setup" but the scenario has no setup.memories nor setup.steps, so no setup request can meet it; use stage "phase"`,
      );
    for (const c of f.contains === undefined ? [] : Array.isArray(f.contains) ? f.contains : [f.contains])
      checkRef(c, `${at}.contains`);
  });
  return problems;
}

/** A fault rule's name in the evidence: its own, else `fault <index>`. */
export function faultName(f: { name?: string }, index: number): string {
  return f.name ?? `fault ${index}`;
}
