import { readdirSync } from 'node:fs';
import { basename, extname, join, resolve } from 'node:path';
import { InputError, messageOf } from '../util/errors.js';
import { describeIssues, readJson5Recovering } from '../util/json5-file.js';
import { checkRefs } from './refs.js';
import { scenarioSchema, type Scenario } from './schema.js';
import { checkWiring } from './wiring.js';
import { checkSetupFiles } from './hardening.js';
import { expandAndCheckJudges } from './judge-checks.js';
import { checkWellBehavedExercises } from './exercise.js';

export interface LoadedScenario {
  file: string;
  scenario: Scenario;
}

const SCENARIO_EXT = new Set(['.json', '.json5']);

export function scenarioFiles(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch (e) {
    throw new InputError(
      `${dir}: cannot list scenarios (${(e as NodeJS.ErrnoException).code ?? messageOf(e)}); give a folder of scenario files`,
    );
  }
  return entries
    .filter((f) => SCENARIO_EXT.has(extname(f)))
    .sort()
    .map((f) => join(dir, f));
}

/** Load one scenario file: JSON5 syntax, schema, id = file stem, refs, wiring. */
export function loadScenario(file: string): LoadedScenario {
  const { loaded, problems } = inspectScenario(file);
  if (!loaded || problems.length) throw new InputError(problems.join('\n'), problems);
  return loaded;
}

export interface InspectedScenario {
  /** the scenario, when it parsed (its problems may still be non-empty: it is then not to be run) */
  loaded?: LoadedScenario;
  /** the document as read (after repairing missing commas), for checks of its parts when the whole did not parse */
  raw?: unknown;
  /** every problem found, each "file: field: message" */
  problems: string[];
}

/**
 * Every problem of one scenario file in one pass: syntax errors (the checks go on past a missing
 * comma), every schema issue, and the checks of a parsed scenario. A file with any problem is never
 * loaded for a run (loadScenario throws).
 */
export function inspectScenario(file: string): InspectedScenario {
  const read = readJson5Recovering(file);
  const problems = [...read.problems];
  if (!('value' in read)) return { problems };
  const raw = read.value;
  const parsed = scenarioSchema.safeParse(raw);
  if (!parsed.success)
    return { raw, problems: [...problems, ...describeIssues(file, parsed.error, scenarioSchema, raw)] };
  const scenario = parsed.data;
  const stem = basename(file, extname(file));
  const found: string[] = [];
  if (scenario.id !== stem) found.push(`id: "${scenario.id}" must equal the file name "${stem}" (rename one of them)`);
  try {
    found.push(
      ...expandAndCheckJudges(scenario, file),
      ...checkRefs(scenario),
      ...checkWiring(scenario),
      ...checkSetupFiles(scenario),
      ...checkWellBehavedExercises(scenario),
    );
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    // already "file: field: message"
    return { raw, problems: [...problems, ...found.map((p) => `${file}: ${p}`), ...e.problems] };
  }
  return {
    loaded: { file: resolve(file), scenario },
    raw,
    problems: [...problems, ...found.map((p) => `${file}: ${p}`)],
  };
}

/**
 * Load many files, collecting every file's problems before failing. `check` adds the checks a
 * caller knows and this folder does not (the assertions' own load-time checks, in app/load.ts),
 * run on every file, whether or not it parsed, so one pass names everything.
 */
export function loadScenarios(
  files: string[],
  check: (file: string, inspected: InspectedScenario) => string[] = () => [],
): LoadedScenario[] {
  const loaded: LoadedScenario[] = [];
  const problems: string[] = [];
  for (const f of files) {
    const inspected = inspectScenario(f);
    const found = [...inspected.problems, ...check(f, inspected)];
    problems.push(...found);
    if (inspected.loaded && !found.length) loaded.push(inspected.loaded);
  }
  const seen = new Map<string, string>();
  for (const l of loaded) {
    const prev = seen.get(l.scenario.id);
    if (prev) problems.push(`${l.file}: id: "${l.scenario.id}" is also used by ${prev}`);
    seen.set(l.scenario.id, l.file);
  }
  if (problems.length) throw new InputError(problems.join('\n'), problems);
  return loaded;
}
