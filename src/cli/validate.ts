import { existsSync } from 'node:fs';
import { basename, extname } from 'node:path';
import type { Command } from 'commander';
import chalk from 'chalk';
import { InputError, nearest } from '../util/errors.js';
import { BUILTIN_SCENARIOS } from '../util/paths.js';
import { loadConfig } from './config.js';

/**
 * What `validate` checks when given nothing: in a project, its config (a typo in it is exit 3
 * here, as in `run`) and the scenarios and target files it names; elsewhere memeval's own.
 */
async function defaultPaths(): Promise<string[]> {
  const { scenarioFilesIn } = await import('../app/load.js');
  const { scenarioFiles } = await import('../scenario/loader.js');
  const { DEFAULT_TARGET } = await import('../targets/loader.js');
  const { namedTargetFiles, targetFiles } = await import('../targets/files.js');
  const found = loadConfig();
  if (!found) return [...scenarioFiles(BUILTIN_SCENARIOS), ...namedTargetFiles()];
  // npm lookups (execa) come with it: only a project config can name `name@version`
  const { splitTargetRef } = await import('../targets/version.js');
  const { config, file } = found;
  process.stdout.write(`config: ${file}\n`);
  const names = config.targets ?? [DEFAULT_TARGET];
  const builtin = new Map(namedTargetFiles().map((f) => [basename(f, extname(f)), f]));
  // a `name@version` is checked as its declaration; the version is resolved on npm by `run`
  const fileOf = (ref: string): string => {
    const n = splitTargetRef(ref).name;
    const f = builtin.get(n) ?? (existsSync(n) ? n : undefined);
    if (f) return f;
    const guess = nearest(n, [...builtin.keys()]);
    throw new InputError(`${file}: targets: no target "${n}"${guess ? ` (did you mean "${guess}"?)` : ''}`);
  };
  // `all` beside other names adds the built-in targets to them, never in place of them
  const targets = [...(names.includes('all') ? targetFiles() : []), ...names.filter((n) => n !== 'all').map(fileOf)];
  return [...scenarioFilesIn(config.scenarios ?? BUILTIN_SCENARIOS), ...new Set(targets)];
}

export function registerValidate(program: Command): void {
  program
    .command('validate')
    .description('check scenario files and target declarations (files or folders); exit 3 on any problem')
    .argument(
      '[paths...]',
      'files or folders to check (default: the project config and what it names, else every built-in scenario and target)',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  memeval validate                      the built-in scenarios and targets\n  memeval validate ./my-scenarios       every .json5/.json in a folder (and its targets/ folder)\n  memeval validate my-target.json5      a target declaration is recognised by its shape',
    )
    .action(async (paths: string[]) => {
      const { validatePaths } = await import('../app/load.js');
      const results = validatePaths(paths.length ? paths : await defaultPaths());
      for (const r of results)
        process.stdout.write(
          `${r.problems.length ? chalk.red('error') : chalk.green('ok')}    ${r.file} ${chalk.dim(`(${r.kind})`)}\n`,
        );
      const problems = results.flatMap((r) => r.problems);
      if (problems.length) throw new InputError(problems.join('\n'), problems);
      process.stdout.write(`${results.length} file(s) valid\n`);
      // valid is not right: only the real server says whether the ops, store and views match it
      for (const r of paths.length ? results.filter((x) => x.kind === 'target') : [])
        process.stdout.write(`next: check it against its real server: memeval targets check ${r.file}\n`);
    });
}
