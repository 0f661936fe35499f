import type { Command } from 'commander';
import chalk from 'chalk';
import { cacheDir } from '../targets/cache.js';
import type { CliContext } from './options.js';
import { registerTargetsCheck } from './targets-check.js';
import { registerTargetsNew } from './targets-new.js';

export function registerTargets(program: Command, cli: CliContext): void {
  const targets = program.command('targets').description('list and install the memory servers memeval can test');
  targets
    .command('list')
    .description('each target: package and pinned version, installed or not, store format, claimed defences')
    .action(async () => {
      const { targetStatus } = await import('../app/targets.js');
      const all = targetStatus();
      const w = Math.max(...all.map((t) => t.name.length));
      for (const t of all) {
        const inst = t.installed ? chalk.green('installed    ') : chalk.yellow('not installed');
        process.stdout.write(`${t.name.padEnd(w)}  ${inst}  ${t.store.padEnd(6)}  ${t.package}\n`);
        process.stdout.write(
          chalk.dim(`${''.padEnd(w)}  claims: ${t.claims.length ? t.claims.join(', ') : '(none)'}\n`),
        );
      }
      process.stdout.write(chalk.dim(`cache: ${cacheDir()}\n`));
    });
  targets
    .command('install')
    .description(
      'install pinned target packages (or name@version: another version) with npm into the per-user cache (idempotent; safe to run twice at once)',
    )
    .argument('<names...>', 'target names (name@version for another version), or "all"')
    .action(async (names: string[]) => {
      const { installTargetsNamed } = await import('../app/targets.js');
      await installTargetsNamed(names, (s) => process.stdout.write(s + '\n'));
    });
  registerTargetsCheck(targets, cli);
  registerTargetsNew(targets, cli);
}
