import type { Command } from 'commander';
import chalk from 'chalk';
import { validatePaths } from '../app/load.js';
import { scenarioFiles } from '../scenario/loader.js';
import { targetFiles } from '../targets/loader.js';
import { InputError } from '../util/errors.js';
import { BUILTIN_SCENARIOS } from '../util/paths.js';

export function registerValidate(program: Command): void {
  program
    .command('validate')
    .description('check scenario files and target declarations (files or folders); exit 3 on any problem')
    .argument('[paths...]', 'files or folders to check (default: every built-in scenario and target)')
    .addHelpText(
      'after',
      '\nExamples:\n  memeval validate                      the built-in scenarios and targets\n  memeval validate ./my-scenarios       every .json5/.json in a folder (and its targets/ folder)\n  memeval validate my-target.json5      a target declaration is recognised by its shape',
    )
    .action((paths: string[]) => {
      const results = validatePaths(paths.length ? paths : [...scenarioFiles(BUILTIN_SCENARIOS), ...targetFiles()]);
      for (const r of results)
        process.stdout.write(
          `${r.problems.length ? chalk.red('error') : chalk.green('ok')}    ${r.file} ${chalk.dim(`(${r.kind})`)}\n`,
        );
      const problems = results.flatMap((r) => r.problems);
      if (problems.length) throw new InputError(problems.join('\n'), problems);
      process.stdout.write(`${results.length} file(s) valid\n`);
    });
}
