import picomatch from 'picomatch';
import { InputError, nearest } from '../util/errors.js';
import type { LoadedScenario } from './loader.js';

export interface Selection {
  /** ids or glob patterns (`secret-*`); a scenario matching any is kept */
  ids?: string[];
  /** a scenario carrying any of these tags is kept */
  tags?: string[];
}

/**
 * Pick scenarios by id/glob and by tag (both given: a scenario must match both). A pattern or
 * tag that matches nothing, or a selection of zero scenarios, is bad input: exit 3, with the
 * nearest known name.
 */
export function selectScenarios(all: LoadedScenario[], sel: Selection): LoadedScenario[] {
  if (!sel.ids?.length && !sel.tags?.length) return all;
  const problems: string[] = [];
  let picked = all;
  if (sel.ids?.length) {
    const ids = all.map((s) => s.scenario.id);
    const matchers = sel.ids.map((p) => ({ p, m: picomatch(p) }));
    for (const { p, m } of matchers)
      if (!ids.some((id) => m(id))) {
        const guess = picomatch.scan(p).isGlob ? undefined : nearest(p, ids);
        problems.push(
          `--scenario: "${p}" matches no scenario${guess ? ` (did you mean "${guess}"?)` : ''}; see \`memeval list\``,
        );
      }
    picked = picked.filter((s) => matchers.some(({ m }) => m(s.scenario.id)));
  }
  if (sel.tags?.length) {
    const known = [...new Set(all.flatMap((s) => s.scenario.tags))].sort();
    for (const t of sel.tags)
      if (!known.includes(t)) {
        const guess = nearest(t, known);
        problems.push(
          `--tag: no scenario has tag "${t}"${guess ? ` (did you mean "${guess}"?)` : ''}; tags: ${known.join(', ')}`,
        );
      }
    picked = picked.filter((s) => s.scenario.tags.some((t) => sel.tags!.includes(t)));
  }
  if (!problems.length && !picked.length)
    problems.push(
      `--scenario/--tag: no scenario matches ${[...(sel.ids ?? []), ...(sel.tags ?? []).map((t) => `tag ${t}`)].join(' and ')}`,
    );
  if (problems.length) throw new InputError(problems.join('\n'), problems);
  // keep the given order for plain ids (as before), folder order otherwise
  if (sel.ids?.length && sel.ids.every((p) => !picomatch.scan(p).isGlob) && !sel.tags?.length)
    return sel.ids.map((id) => picked.find((s) => s.scenario.id === id)!).filter(Boolean);
  return picked;
}

/** The layers a scenario can run in, as `memeval list` shows them. */
export function scenarioLayers(s: LoadedScenario['scenario']): string[] {
  return [
    'deterministic',
    ...(s.deterministic.violation ? ['violation'] : []),
    ...(s.real_model ? ['real-model'] : []),
  ];
}
