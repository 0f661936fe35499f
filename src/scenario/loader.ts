import { readdirSync } from 'node:fs';
import { basename, extname, join, resolve } from 'node:path';
import { InputError, messageOf } from '../util/errors.js';
import { parseWith, readJson5File } from '../util/json5-file.js';
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
  const raw = readJson5File(file);
  const scenario = parseWith(file, raw, scenarioSchema);
  const stem = basename(file, extname(file));
  const problems: string[] = [];
  if (scenario.id !== stem)
    problems.push(`id: "${scenario.id}" must equal the file name "${stem}" (rename one of them)`);
  problems.push(
    ...expandAndCheckJudges(scenario, file),
    ...checkRefs(scenario),
    ...checkWiring(scenario),
    ...checkSetupFiles(scenario),
    ...checkWellBehavedExercises(scenario),
  );
  if (problems.length) {
    const lines = problems.map((p) => `${file}: ${p}`);
    throw new InputError(lines.join('\n'), lines);
  }
  return { file: resolve(file), scenario };
}

/** Load many files, collecting every file's problems before failing. */
export function loadScenarios(files: string[]): LoadedScenario[] {
  const loaded: LoadedScenario[] = [];
  const problems: string[] = [];
  for (const f of files) {
    try {
      loaded.push(loadScenario(f));
    } catch (e) {
      if (e instanceof InputError) problems.push(...e.problems);
      else throw e;
    }
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
