import { decidedOnEvidence, type Judgment } from './results.js';

/**
 * Stages: the named steps of a scenario's story ("written", "marked", "survives restart", "acted
 * on") that its assertions report on (`stage` on an assertion, copied onto its judgment). A
 * stage's outcome is read from its judgments only, for reporting: the verdict stays the
 * assertions'. A stage with a judgment that errored or abstained was not judged, whatever the
 * others say, so it never reads as passed; nor one with a pass or fail that names nothing it observed.
 */

/** What a judgment carries of its assertion's `stage`: the name and the words for each outcome. */
export interface StageTag {
  name: string;
  pass?: string;
  fail?: string;
}

export interface StageResult {
  name: string;
  outcome: 'pass' | 'fail' | 'error' | 'abstain';
  /** what a reader sees: the stage's words for its outcome, with "N of M" when only some of its assertions failed */
  label: string;
  passed: number;
  failed: number;
  total: number;
  /** the assertions of the stage, in the scenario's order */
  assertions: string[];
}

/** A stage as an assertion declares it (a name, or a name with words), as the judgment keeps it. */
export function stageTag(stage: string | StageTag | undefined): StageTag | undefined {
  if (stage === undefined) return undefined;
  return typeof stage === 'string' ? { name: stage } : stage;
}

function tagOf(j: Judgment): StageTag | undefined {
  const s = (j as { stage?: unknown }).stage;
  if (typeof s === 'string') return { name: s };
  if (s && typeof s === 'object' && typeof (s as StageTag).name === 'string') return s as StageTag;
  return undefined;
}

/** The cell's stages, in the order their first assertion appears; none when no assertion names one. */
export function cellStages(judgments: readonly Judgment[]): StageResult[] {
  const by = new Map<string, { tag: StageTag; js: Judgment[] }>();
  for (const j of judgments) {
    const tag = tagOf(j);
    if (!tag) continue;
    const at = by.get(tag.name) ?? { tag: { ...tag }, js: [] };
    // the first words given for an outcome win; later assertions may leave them out
    at.tag.pass ??= tag.pass;
    at.tag.fail ??= tag.fail;
    at.js.push(j);
    by.set(tag.name, at);
  }
  return [...by.values()].map(({ tag, js }) => {
    // a pass or fail that names nothing it observed is no reading of the stage (the verdict is error for it too)
    const unobserved = js.filter((j) => (j.outcome === 'pass' || j.outcome === 'fail') && !decidedOnEvidence(j)).length;
    const count = (o: Judgment['outcome']) => js.filter((j) => j.outcome === o && decidedOnEvidence(j)).length;
    const errors = js.filter((j) => j.outcome === 'error').length;
    const abstained = js.filter((j) => j.outcome === 'abstain').length;
    const [passed, failed] = [count('pass'), count('fail')];
    const total = js.length;
    const outcome: StageResult['outcome'] =
      errors || unobserved ? 'error' : failed ? 'fail' : abstained ? 'abstain' : 'pass';
    const notJudged = [
      errors && `${errors} error(s)`,
      unobserved && `${unobserved} decided without naming what it observed`,
    ].filter(Boolean);
    const words =
      outcome === 'pass'
        ? (tag.pass ?? `${tag.name}: pass`)
        : outcome === 'fail'
          ? failWords(tag, js)
          : `${tag.name}: not judged (${outcome === 'error' ? notJudged.join(', ') : `${abstained} abstained`})`;
    return { name: tag.name, outcome, label: words, passed, failed, total, assertions: js.map((j) => j.name) };
  });
}

/**
 * A failed stage's words: its fail words for the judgments they describe, and for a judgment that
 * failed without observing it (`not_observed`: a rank over a recall that returned nothing) why.
 */
function failWords(tag: StageTag, js: readonly Judgment[]): string {
  const failed = js.filter((j) => j.outcome === 'fail');
  const own = (j: Judgment) => (typeof j.not_observed === 'string' ? j.not_observed : undefined);
  const described = failed.filter((j) => own(j) === undefined);
  const counted = (n: number) => (js.length > 1 && n < js.length ? ` (${n} of ${js.length})` : '');
  const parts = described.length ? [`${tag.fail ?? `${tag.name}: fail`}${counted(described.length)}`] : [];
  for (const why of new Set(failed.map(own).filter((w): w is string => w !== undefined))) {
    const n = failed.filter((j) => own(j) === why).length;
    parts.push(`${tag.name}: not shown, ${why}${counted(n)}`);
  }
  return parts.join('; ');
}

/** One line a reader reads: "written verbatim, unmarked, recalled for unrelated questions (4 of 5)". */
export const stagesLine = (stages: readonly StageResult[]): string => stages.map((s) => s.label).join(', ');
