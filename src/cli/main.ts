import { Command, CommanderError } from 'commander';
import { EXIT } from '../core/results.js';
import chalk from 'chalk';
import { resolve } from 'node:path';
import { InputError, RunWriteError } from '../util/errors.js';
import { InstallError } from '../targets/install.js';
import { MEMEVAL_VERSION } from '../util/paths.js';
import { registerRun } from './run.js';
import { registerValidate } from './validate.js';
import { registerList } from './list.js';
import { registerSchema } from './schema.js';
import { registerProxy } from './proxy.js';
import { registerTargets } from './targets.js';
import { registerAgents } from './agents.js';
import { registerView } from './view.js';
import { colorLevel } from '../report/progress.js';
import { registerDiff } from './diff.js';
import { registerRuns } from './runs.js';
import { registerSql } from './sql.js';
import { registerMerge } from './merge.js';
import { registerInit } from './init.js';
import { registerJudge } from './judge.js';
import { registerRejudge } from './rejudge.js';
import { registerFuzz } from './fuzz.js';
import { registerFlags } from './flags.js';
import { registerSelftest } from './selftest.js';

export { EXIT };

/** What commands share with the entry: the exit code to end with, and how to quit at once. */
export interface CliContext {
  exitCode: number;
  hardExit: (code: number) => never;
}

export { positiveInt } from './options.js';

/** Repeatable, comma-separated list options (`--scenario a,b --scenario c`). */
export function collectList(value: string, prev: string[] = []): string[] {
  return [...prev, ...value.split(',').map((s) => s.trim()).filter(Boolean)];
}

export function buildProgram(cli: CliContext): Command {
  const program = new Command();
  program
    .name('memeval')
    .description(
      'Checks whether AI agents and their memory servers keep memory clean: no run noise, no secrets, ' +
        'no duplicate or stale preferences, and recall that works across sessions.',
    )
    .version(MEMEVAL_VERSION)
    .option('--cache-dir <dir>', 'where targets and agents are installed (env MEMEVAL_CACHE_DIR; default $XDG_CACHE_HOME/memeval)')
    .hook('preAction', (cmd) => {
      // NO_COLOR and FORCE_COLOR, as users set them (chalk alone ignores NO_COLOR)
      chalk.level = colorLevel(process.env, Boolean(process.stdout.isTTY));
      const dir = cmd.opts().cacheDir as string | undefined;
      if (dir) process.env.MEMEVAL_CACHE_DIR = resolve(dir);
    })
    .showHelpAfterError()
    .addHelpText(
      'after',
      '\nExit codes: 0 all good, 1 something failed or errored, 2 real-model turns blocked by the cost gate,\n3 invalid input (scenario, target or flags) and nothing ran.',
    );
  // commander throws instead of exiting; main() maps help to 0 and usage errors to 3
  program.exitOverride();
  registerRun(program, cli);
  registerValidate(program);
  registerList(program);
  registerSchema(program);
  registerProxy(program, cli);
  registerTargets(program);
  registerAgents(program);
  registerView(program);
  registerDiff(program, cli);
  registerRuns(program);
  registerSql(program);
  registerMerge(program, cli);
  registerInit(program);
  registerJudge(program, cli);
  registerRejudge(program, cli);
  registerFuzz(program, cli);
  registerFlags(program);
  registerSelftest(program, cli);
  return program;
}

/** Run the CLI; resolves with the exit code (the entry is the one place that exits). */
export async function main(argv = process.argv, hardExit: (code: number) => never = (c) => process.exit(c)): Promise<number> {
  const cli: CliContext = { exitCode: EXIT.ok, hardExit };
  try {
    await buildProgram(cli).parseAsync(argv);
    return cli.exitCode;
  } catch (e) {
    if (e instanceof CommanderError) {
      // commander's own usage errors are invalid input too
      return ['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(e.code) ? EXIT.ok : EXIT.invalid;
    }
    if (e instanceof InputError) {
      for (const p of e.problems) process.stderr.write(chalk.red('error: ') + p + '\n');
      return EXIT.invalid;
    }
    if (e instanceof RunWriteError) {
      process.stderr.write(chalk.red('run error: ') + e.message + '\n');
      return EXIT.failed;
    }
    if (e instanceof InstallError) {
      process.stderr.write(chalk.red('install failed: ') + e.message + '\n');
      return EXIT.failed;
    }
    process.stderr.write(chalk.red('memeval: ') + ((e as Error).stack ?? String(e)) + '\n');
    return EXIT.failed;
  }
}

