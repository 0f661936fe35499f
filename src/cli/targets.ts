import type { Command } from 'commander';
import chalk from 'chalk';
import { loadAllTargets, loadTarget } from '../targets/loader.js';
import { isInstalled } from '../targets/resolve-bin.js';
import { installTargets, targetNames } from '../targets/install-many.js';
import { cacheDir } from '../targets/cache.js';


export function registerTargets(program: Command): void {
  const targets = program.command('targets').description('list and install the memory servers memeval can test');
  targets
    .command('list')
    .description('each target: package and pinned version, installed or not, store format, claimed defences')
    .action(() => {
      const all = loadAllTargets();
      const w = Math.max(...all.map((t) => t.decl.name.length));
      for (const { decl } of all) {
        const pkg = decl.package ? `${decl.package.npm}@${decl.package.version}` : `local: ${decl.server.command}`;
        const inst = isInstalled(decl) ? chalk.green('installed    ') : chalk.yellow('not installed');
        process.stdout.write(`${decl.name.padEnd(w)}  ${inst}  ${decl.store.format.padEnd(6)}  ${pkg}\n`);
        process.stdout.write(chalk.dim(`${''.padEnd(w)}  claims: ${decl.claims.length ? decl.claims.join(', ') : '(none)'}\n`));
      }
      process.stdout.write(chalk.dim(`cache: ${cacheDir()}\n`));
    });
  targets
    .command('install')
    .description('install pinned target packages with npm into the per-user cache (idempotent; safe to run twice at once)')
    .argument('<names...>', 'target names, or "all"')
    .action(async (names: string[]) => {
      const decls = targetNames(names).map((n) => loadTarget(n).decl);
      await installTargets(decls, (s) => process.stdout.write(s + '\n'));
    });
}

