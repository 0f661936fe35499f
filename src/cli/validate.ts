import { basename, dirname } from 'node:path';
import type { Command } from 'commander';
import chalk from 'chalk';
import { InputError } from '../util/errors.js';
import { BUILTIN_SCENARIOS } from '../util/paths.js';
import { loadScenario, scenarioFiles } from '../scenario/loader.js';
import { loadTargetFile, targetFiles } from '../targets/loader.js';

export function registerValidate(program: Command): void {
  program
    .command('validate')
    .description('check scenario files (and target declarations under a targets/ folder); exit 3 on any problem')
    .argument('[files...]', 'files to check (default: every built-in scenario and target)')
    .action((files: string[]) => {
      const list = files.length ? files : [...scenarioFiles(BUILTIN_SCENARIOS), ...targetFiles()];
      const problems: string[] = [];
      for (const f of list) {
        try {
          if (basename(dirname(f)) === 'targets') loadTargetFile(f);
          else loadScenario(f);
          process.stdout.write(`${chalk.green('ok')}    ${f}\n`);
        } catch (e) {
          if (!(e instanceof InputError)) throw e;
          process.stdout.write(`${chalk.red('error')} ${f}\n`);
          problems.push(...e.problems);
        }
      }
      if (problems.length) throw new InputError(problems.join('\n'), problems);
      process.stdout.write(`${list.length} file(s) valid\n`);
    });
}
