import { Command, InvalidArgumentError } from 'commander';
import chalk from 'chalk';
import { resolve } from 'node:path';
import { InputError } from '../util/errors.js';
import { InstallError } from '../targets/install.js';
import { MEMEVAL_VERSION } from '../util/paths.js';
import { registerRun } from './run.js';
import { registerValidate } from './validate.js';
import { registerList } from './list.js';
import { registerSchema } from './schema.js';
import { registerProxy } from './proxy.js';
import { registerTargets } from './targets.js';
import { registerAgents } from './agents.js';
import { registerFuzz } from './fuzz.js';
import { registerFlags } from './flags.js';

export const EXIT = { ok: 0, failed: 1, blocked: 2, invalid: 3 } as const;

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number of 1 or more');
  return n;
}

/** Repeatable, comma-separated list options (`--scenario a,b --scenario c`). */
export function collectList(value: string, prev: string[] = []): string[] {
  return [...prev, ...value.split(',').map((s) => s.trim()).filter(Boolean)];
}

export function buildProgram(): Command {
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
      const dir = cmd.opts().cacheDir as string | undefined;
      if (dir) process.env.MEMEVAL_CACHE_DIR = resolve(dir);
    })
    .showHelpAfterError()
    .addHelpText(
      'after',
      '\nExit codes: 0 all good, 1 something failed or errored, 2 real-model turns blocked by the cost gate,\n3 invalid input (scenario, target or flags) and nothing ran.',
    );
  program.exitOverride((err) => {
    // commander's own usage errors are invalid input too
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') process.exit(0);
    process.exit(EXIT.invalid);
  });
  registerRun(program);
  registerValidate(program);
  registerList(program);
  registerSchema(program);
  registerProxy(program);
  registerTargets(program);
  registerAgents(program);
  registerFuzz(program);
  registerFlags(program);
  return program;
}

export async function main(argv = process.argv): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (e) {
    if (e instanceof InputError) {
      for (const p of e.problems) process.stderr.write(chalk.red('error: ') + p + '\n');
      process.exit(EXIT.invalid);
    }
    if (e instanceof InstallError) {
      process.stderr.write(chalk.red('install failed: ') + e.message + '\n');
      process.exit(EXIT.failed);
    }
    process.stderr.write(chalk.red('memeval: ') + ((e as Error).stack ?? String(e)) + '\n');
    process.exit(EXIT.failed);
  }
}

