import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { flatSteps, type Assertion, type Scenario } from './schema.js';
import { loadCorpus } from './corpus.js';

/** Every assertion, with jury and cascade members, and a path for messages. */
export function walkAssertions(list: Assertion[], base = 'assertions'): { a: Assertion; path: string }[] {
  return list.flatMap((a, i) => {
    const path = `${base}[${i}]`;
    const inner =
      a.kind === 'jury'
        ? walkAssertions(a.judges, `${path}.judges`)
        : a.kind === 'cascade'
          ? a.tiers.flatMap((t, k) => walkAssertions(t.judges, `${path}.tiers[${k}].judges`))
          : [];
    return [{ a, path }, ...inner];
  });
}

/**
 * Does this judge (or one inside it) read what a recall returned: a recall probe (`recall`,
 * `rank`, an `llm` over recall results), or recall texts in the calls log (`sql` on result_text)?
 */
export function readsRecall(a: Assertion): boolean {
  return walkAssertions([a]).some(
    ({ a: m }) =>
      m.kind === 'recall' ||
      m.kind === 'rank' ||
      (m.kind === 'llm' && m.subject === 'recall') ||
      (m.kind === 'sql' && /result_text/i.test(m.query)),
  );
}

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
      })),
    );
  }
  const known = new Set(scenario.setup.memories.map((m) => m.ref));
  const steps = flatSteps([
    ...scenario.setup.steps,
    ...scenario.deterministic.well_behaved,
    ...(scenario.deterministic.violation?.steps ?? []),
  ]);
  for (const s of steps) if (s.op === 'remember' && s.ref) known.add(s.ref);
  const need = (v: string | undefined, path: string) => {
    if (v === undefined) return;
    const name = v.startsWith('$ref:') ? v.slice(5) : undefined;
    if (!name) problems.push(`${path}: expected "$ref:<name>"`);
    else if (!known.has(name))
      problems.push(`${path}: unknown ref "${name}" (not a setup memory or a remember step's ref)`);
  };
  for (const { a, path } of walkAssertions(scenario.assertions)) {
    if (a.kind === 'rank') (need(a.memory, `${path}.memory`), need(a.before, `${path}.before`));
    if (a.kind === 'count') need(a.ref, `${path}.ref`);
    if (a.kind === 'llm' && a.prompt && !existsSync(resolve(dirname(file), a.prompt)))
      problems.push(`${path}.prompt: ${resolve(dirname(file), a.prompt)} does not exist`);
  }
  return problems;
}
