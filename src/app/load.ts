import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { checkAssertion, type CheckEnv } from '../judge/registry.js';
import { storeSqlProblems, storeSqlSyntaxProblems } from '../cell/store-sql.js';
import type { RunTarget } from '../cell/plan.js';
import { inspectScenario, loadScenarios, type InspectedScenario, type LoadedScenario } from '../scenario/loader.js';
import { assertionSchema, type Assertion } from '../scenario/schema.js';
import { loadTarget, loadTargetFile, type LoadedTarget } from '../targets/loader.js';
import { NotInstalledError, resolveTargetBin } from '../targets/resolve-bin.js';
import type { VersionedTarget } from '../targets/version.js';
import { InputError } from '../util/errors.js';
import { selectScenarios as select } from '../scenario/select.js';
import { readJson5File } from '../util/json5-file.js';
import { BUILTIN_SCENARIOS } from '../util/paths.js';

const EXT = new Set(['.json', '.json5']);

/**
 * The scenario files of a folder, or an input error that says what is wrong with the path:
 * missing, a file, or a folder with no scenario in it. Never a green run of nothing.
 */
export function scenarioFilesIn(given: string, flag = '--scenarios'): string[] {
  const dir = scenariosDirFor(given);
  if (!existsSync(dir))
    throw new InputError(
      `${flag}: ${dir} does not exist; give a folder of scenario files (.json5 or .json) or a built-in suite (${builtinSuites().join(', ')})`,
    );
  if (!statSync(dir).isDirectory())
    throw new InputError(
      `${flag}: ${dir} is a file, not a folder; give the folder it is in (${dirname(resolve(dir))}) and select it with --scenario ${basename(dir, extname(dir))}`,
    );
  const files = readdirSync(dir)
    .filter((f) => EXT.has(extname(f)))
    .sort()
    .map((f) => join(dir, f));
  if (!files.length) throw new InputError(`${flag}: ${dir} holds no scenario files (.json5 or .json)`);
  return files;
}

/**
 * A built-in suite (a folder under memeval's scenarios/, e.g. `recall`) named by a path that is not
 * a folder here: `--scenarios recall` then works wherever memeval is installed, not only in its clone.
 */
export function scenariosDirFor(given: string): string {
  if (existsSync(given) || !/^[\w-]+$/.test(given) || !builtinSuites().includes(given)) return given;
  return join(BUILTIN_SCENARIOS, given);
}

function builtinSuites(): string[] {
  return readdirSync(BUILTIN_SCENARIOS, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

/** Load a folder of scenarios; every file's problems are collected before failing. */
export function loadScenarioDir(dir: string): LoadedScenario[] {
  // the targets are not known yet: a table memeval does not know is checked again with them (checkAgainstTargets)
  return loadScenarios(scenarioFilesIn(dir), (file, inspected) =>
    assertionProblems(file, inspected, { extraViews: 'unknown' }),
  );
}

/**
 * The assertions' own load-time checks (SQL against the evidence schema, regexes, …) of a scenario
 * file, also when the file as a whole did not parse: each assertion that parses alone is checked,
 * so one pass names its problems beside the schema's.
 */
export function assertionProblems(file: string, inspected: InspectedScenario, env: CheckEnv): string[] {
  const raw = (inspected.raw as { assertions?: unknown } | undefined)?.assertions;
  const assertions: (Assertion | undefined)[] = inspected.loaded
    ? inspected.loaded.scenario.assertions
    : Array.isArray(raw)
      ? raw.map((r) => {
          const one = assertionSchema.safeParse(r);
          return one.success ? one.data : undefined;
        })
      : [];
  return assertions.flatMap((a, i) => (a ? checkAssertion(a, env).map((p) => `${file}: assertions[${i}].${p}`) : []));
}

/**
 * The scenarios of a folder picked by id, glob or tag. When the folder is memeval's own and a
 * selection is given, the built-in suites' folders (scenarios/recall/, …) are searched too: a
 * built-in scenario is found by its id wherever its file lives. With no selection a run keeps to
 * the folder itself, as before.
 */
export function loadSelected(dir: string, sel: { ids?: string[]; tags?: string[] }): LoadedScenario[] {
  const selecting = Boolean(sel.ids?.length || sel.tags?.length);
  return select(selecting && isBuiltinFolder(dir) ? loadBuiltinScenarios() : loadScenarioDir(dir), sel);
}

/** Every built-in scenario: memeval's scenarios/ folder and each suite folder in it. */
export function loadBuiltinScenarios(): LoadedScenario[] {
  const files = [BUILTIN_SCENARIOS, ...builtinSuites().map((s) => join(BUILTIN_SCENARIOS, s))].flatMap((d) =>
    scenarioFilesIn(d),
  );
  return loadScenarios(files, (file, inspected) => assertionProblems(file, inspected, { extraViews: 'unknown' }));
}

export function isBuiltinFolder(dir: string): boolean {
  return resolve(scenariosDirFor(dir)) === resolve(BUILTIN_SCENARIOS);
}

/** Scenarios by id (or glob); see scenario/select.ts for tags. */
export function selectScenarios(all: LoadedScenario[], ids: string[] | undefined): LoadedScenario[] {
  return select(all, { ids });
}

/**
 * Checks that need a scenario and a target together, before anything runs: assertions
 * prepared against what the evidence schema will be for that target.
 */
export function checkAgainstTargets(scenarios: LoadedScenario[], targets: LoadedTarget[]): void {
  const problems: string[] = [];
  for (const s of scenarios) {
    for (const p of storeSqlSyntaxProblems(s.scenario)) problems.push(`${s.file}: ${p}`);
    for (const t of targets) {
      s.scenario.assertions.forEach((a, i) => {
        for (const p of checkAssertion(a, { extraViews: Object.keys(t.decl.views.extra) }))
          problems.push(`${s.file}: assertions[${i}].${p} (target ${t.decl.name})`);
      });
      for (const p of storeSqlProblems(s.scenario, t.decl)) problems.push(`${s.file}: ${p}`);
    }
  }
  if (problems.length) throw new InputError(problems.join('\n'), [...new Set(problems)]);
}

/** Targets by name (or declaration path), each with its installed server, or an input error. */
export function resolveTargets(names: string[]): RunTarget[] {
  return withServers(names.map((n) => loadTarget(n)));
}

/** Loaded targets (at the versions --target asked for) with their installed servers, or an input error naming every one missing. */
export function withServers(loaded: VersionedTarget[]): RunTarget[] {
  const problems: string[] = [];
  const out: RunTarget[] = [];
  for (const t of loaded) {
    try {
      out.push({ ...t, bin: resolveTargetBin(t.decl) });
    } catch (e) {
      if (e instanceof NotInstalledError) problems.push(e.message);
      else throw e;
    }
  }
  if (problems.length) throw new InputError(problems.join('\n'), problems);
  return out;
}

/** A target declaration is recognised by its shape, wherever it lives: it has a store and ops. */
export function looksLikeTarget(file: string): boolean {
  if (basename(dirname(resolve(file))) === 'targets') return true;
  try {
    const raw = readJson5File(file) as Record<string, unknown> | null;
    return Boolean(raw && typeof raw === 'object' && 'store' in raw && 'ops' in raw && !('schema_version' in raw));
  } catch {
    return false;
  }
}

export interface ValidateResult {
  file: string;
  kind: 'scenario' | 'target';
  problems: string[];
}

/** Validate files and folders (a folder: its .json5/.json files); nothing runs. */
export function validatePaths(paths: string[]): ValidateResult[] {
  const empty: ValidateResult[] = [];
  // a dangling link or a folder of nothing is one file's problem, not the end of the check
  const isDir = (p: string) => {
    try {
      return statSync(p).isDirectory();
    } catch {
      return false;
    }
  };
  const files = paths.flatMap((p) => {
    if (!existsSync(p)) return [p];
    if (isDir(p)) {
      const inside = readdirSync(p)
        .sort()
        .flatMap((f) => {
          const full = join(p, f);
          if (isDir(full))
            return f === 'targets'
              ? readdirSync(full)
                  .filter((x) => EXT.has(extname(x)))
                  .sort()
                  .map((x) => join(full, x))
              : EXT.has(extname(f))
                ? [full]
                : [];
          return EXT.has(extname(f)) ? [full] : [];
        });
      if (!inside.length)
        empty.push({
          file: p,
          kind: 'scenario',
          problems: [`${p}: holds no scenario or target files (.json5 or .json)`],
        });
      return inside;
    }
    return [p];
  });
  return [
    ...empty,
    ...files.map((file): ValidateResult => {
      const kind = looksLikeTarget(file) ? 'target' : 'scenario';
      if (kind === 'scenario') {
        const inspected = inspectScenario(file);
        // no target is named here: a table memeval does not know is a problem, as it is in a run with no extra views
        return { file, kind, problems: [...inspected.problems, ...assertionProblems(file, inspected, {})] };
      }
      try {
        loadTargetFile(file);
        return { file, kind, problems: [] };
      } catch (e) {
        if (!(e instanceof InputError)) throw e;
        return { file, kind, problems: e.problems };
      }
    }),
  ];
}
