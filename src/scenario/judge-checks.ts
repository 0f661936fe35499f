import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { flatSteps, type Assertion, type Scenario } from './schema.js';
import { loadCorpus } from './corpus.js';
import { GROUNDED_CHECKS } from './llm-schema.js';
import { pluginModuleProblem } from './plugin-check.js';

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
 * `rank`, an `llm` over recall results), or recall texts in the calls log or the stored probes (`sql` on
 * result_text, recall_probes; a grounded `llm` check)?
 */
export function readsRecall(a: Assertion): boolean {
  return walkAssertions([a]).some(
    ({ a: m }) =>
      m.kind === 'recall' ||
      m.kind === 'rank' ||
      (m.kind === 'llm' && m.subject === 'recall') ||
      // faithful, hallucination read the agent's recall results in the calls log
      (m.kind === 'llm' && GROUNDED_CHECKS.has(m.check)) ||
      (m.kind === 'sql' && /result_text|recall_probes/i.test(m.query)),
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
    if (a.kind === 'plugin') {
      if (path.includes('.judges')) {
        problems.push(
          `${path}: a plugin judge cannot sit inside a jury or cascade (it runs in the time-limited judge process); give it as an assertion of its own`,
        );
        continue;
      }
      // resolved once here, so the judge process and rejudge read the same file
      a.module = resolve(dirname(file), a.module);
      const why = pluginModuleProblem(a.module);
      if (why) problems.push(`${path}.module: ${why}`);
    }
    if (a.kind === 'llm' && a.prompt && !existsSync(resolve(dirname(file), a.prompt)))
      problems.push(`${path}.prompt: ${resolve(dirname(file), a.prompt)} does not exist`);
  }
  return problems;
}
