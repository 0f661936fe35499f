import { dirname } from 'node:path';
import { assertionApplies, flatSteps, type Scenario } from './schema.js';
import { loadCorpus } from './corpus.js';
import { traitsOf, walkAssertions } from './kinds.js';
import { createdRef } from './step-ops.js';

/**
 * Seed memories from `setup.memories_from` (appended after the inline ones) and check what
 * judges name: refs in rank and count assertions, prompt override files.
 */
export function expandAndCheckJudges(scenario: Scenario, file: string): string[] {
  const problems: string[] = [];
  const from = scenario.setup.memories_from;
  if (from !== undefined) {
    const { memories, problems: p } = loadCorpus(Array.isArray(from) ? from : [from], file);
    problems.push(...p);
    scenario.setup.memories.push(
      ...memories.map((m) => ({
        ref: m.ref,
        content: m.content,
        ...(m.category ? { category: m.category } : {}),
        ...(m.source ? { source: m.source } : {}),
        ...(m.subject ? { subject: m.subject } : {}),
        ...(m.tags.length ? { tags: m.tags } : {}),
        ...(m.metadata ? { metadata: m.metadata } : {}),
      })),
    );
  }
  const known = new Set(scenario.setup.memories.map((m) => m.ref));
  const steps = flatSteps([
    ...scenario.setup.steps,
    ...scenario.deterministic.well_behaved,
    ...(scenario.deterministic.violation?.steps ?? []),
  ]);
  for (const s of steps) {
    const ref = createdRef(s);
    if (ref) known.add(ref);
  }
  const need = (v: string | undefined, path: string) => {
    if (v === undefined) return;
    const name = v.startsWith('$ref:') ? v.slice(5) : undefined;
    if (!name) problems.push(`${path}: expected "$ref:<name>"`);
    else if (!known.has(name))
      problems.push(`${path}: unknown ref "${name}" (not a setup memory or a remember step's ref)`);
  };
  for (const { a, path } of walkAssertions(scenario.assertions)) {
    const t = traitsOf(a);
    for (const [field, value] of t.refs(a)) need(value, `${path}.${field}`);
    if (a.precondition && path.includes('.judges'))
      problems.push(
        `${path}.precondition: a jury's or cascade's judge is one vote, not a guard of the cell; put \`precondition: true\` on the jury or cascade itself, or on an assertion of its own`,
      );
    if (a.precondition && 'level' in a && a.level === 'warn')
      problems.push(
        `${path}.precondition: a \`level: "warn"\` judgment never decides a verdict, so it cannot guard one; drop \`level: "warn"\` or \`precondition\``,
      );
    if (t.composable !== true && path.includes('.judges')) {
      problems.push(`${path}: ${t.composable}`);
      continue;
    }
    for (const p of t.prepare?.(a, dirname(file)) ?? []) problems.push(`${path}.${p}`);
  }
  problems.push(...onlyPreconditions(scenario));
  return problems;
}

/** A phase judged by preconditions alone checks nothing: every cell of it would be `error`. */
function onlyPreconditions(scenario: Scenario): string[] {
  return (['well-behaved', 'violation'] as const).flatMap((phase) => {
    if (phase === 'violation' && !scenario.deterministic.violation) return [];
    const applied = scenario.assertions.filter((a) => assertionApplies(a, phase));
    return applied.length && applied.every((a) => a.precondition)
      ? [
          `assertions: every assertion of the ${phase} phase is a precondition, so nothing checks the phase; make the assertion that is the check itself \`precondition: false\` (or drop the field)`,
        ]
      : [];
  });
}
