import type { Command } from 'commander';
import chalk from 'chalk';
import { BUILTIN_SCENARIOS } from '../util/paths.js';
import { loadScenarioDir } from '../app/load.js';
import { loadAllTargets } from '../targets/loader.js';
import { isInstalled } from '../targets/resolve-bin.js';

export function registerList(program: Command): void {
  program
    .command('list')
    .description('show the built-in scenarios (id, tags, layers) and targets')
    .option('--scenarios <dir>', 'scenario folder', BUILTIN_SCENARIOS)
    .action((opts: { scenarios: string }) => {
      const scenarios = loadScenarioDir(opts.scenarios);
      process.stdout.write(chalk.bold('Scenarios\n'));
      const w = Math.max(...scenarios.map((s) => s.scenario.id.length), 2);
      for (const { scenario: s } of scenarios) {
        const layers = ['deterministic', s.deterministic.violation ? '+violation' : '', s.real_model ? ', real-model' : ''].join('');
        process.stdout.write(`  ${s.id.padEnd(w)}  ${chalk.dim(layers.padEnd(36))} ${s.tags.join(', ')}\n`);
      }
      process.stdout.write(chalk.bold('\nTargets\n'));
      for (const { decl } of loadAllTargets()) {
        const installed = isInstalled(decl) ? chalk.green('installed') : chalk.yellow('not installed');
        const what = decl.package ? `${decl.package.npm}@${decl.package.version}` : `local: ${decl.server.command}`;
        process.stdout.write(`  ${decl.name.padEnd(w)}  ${what}  ${installed}\n`);
      }
    });
}
