import { Command, CommanderError } from 'commander';
import { EXIT } from '../core/results.js';
import chalk from 'chalk';
import { resolve } from 'node:path';
import { InputError, MemevalError, type ErrorCode } from '../util/errors.js';
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
import type { CliContext } from './options.js';

export function buildProgram(cli: CliContext): Command {
  const program = new Command();
  program
    .name('memeval')
    .description(
      'Checks whether AI agents and their memory servers keep memory clean: no run noise, no secrets, ' +
        'no duplicate or stale preferences, and recall that works across sessions.',
    )
    .version(MEMEVAL_VERSION)
    .option(
      '--cache-dir <dir>',
      'where targets and agents are installed (env MEMEVAL_CACHE_DIR; default $XDG_CACHE_HOME/memeval)',
    )
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
  // each command defines its flags and help here but imports what it runs on (app/, SQLite, the
  // MCP SDK, model clients) inside its action: `--version`, `--help` and `list` would pay for all of them
  registerRun(program, cli);
  registerValidate(program);
  registerList(program);
  registerSchema(program);
  registerProxy(program, cli);
  registerTargets(program, cli);
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

/** How main() introduces an error of memeval's that reached it (default `error:`). */
const PREFIX: Partial<Record<ErrorCode, string>> = { RUN_WRITE: 'run error', INSTALL: 'install failed' };

/** Run the CLI; resolves with the exit code (the entry is the one place that exits). */
export async function main(
  argv = process.argv,
  hardExit: (code: number) => never = (c) => process.exit(c),
): Promise<number> {
  const cli: CliContext = { exitCode: EXIT.ok, hardExit };
  try {
    await buildProgram(cli).parseAsync(argv);
    return cli.exitCode;
  } catch (e) {
    if (e instanceof CommanderError) {
      // commander's own usage errors are invalid input too
      return ['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(e.code)
        ? EXIT.ok
        : EXIT.invalid;
    }
    if (e instanceof InputError) {
      for (const p of e.problems) process.stderr.write(chalk.red('error: ') + p + '\n');
      return e.exit;
    }
    if (e instanceof MemevalError) {
      process.stderr.write(chalk.red(`${PREFIX[e.code] ?? 'error'}: `) + e.message + '\n');
      return e.exit;
    }
    // not raised on purpose: a bug, whose stack says where
    process.stderr.write(chalk.red('memeval: ') + ((e as Error).stack ?? String(e)) + '\n');
    return EXIT.failed;
  }
}
