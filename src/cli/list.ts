import type { Command } from 'commander';
import chalk from 'chalk';
import { BUILTIN_SCENARIOS } from '../util/paths.js';
import { collectList } from './options.js';
import { loadConfig } from './config.js';

export function registerList(program: Command): void {
  program
    .command('list')
    .description('show the scenarios (id, layers, tags, title) and targets')
    .option('--scenarios <dir>', "scenario folder (default: the project config's scenarios, else memeval's own)")
    .option('--scenario <ids>', 'only these ids or globs', collectList)
    .option('--tag <tags>', 'only scenarios with any of these tags', collectList)
    .option('--json', 'print as JSON')
    .action(async (opts: { scenarios?: string; scenario?: string[]; tag?: string[]; json?: boolean }) => {
      const { loadSelected } = await import('../app/load.js');
      const { scenarioLayers } = await import('../scenario/select.js');
      const { loadAllTargets } = await import('../targets/loader.js');
      const { isInstalled } = await import('../targets/resolve-bin.js');
      const dir = opts.scenarios ?? loadConfig()?.config.scenarios ?? BUILTIN_SCENARIOS;
      const scenarios = loadSelected(dir, { ids: opts.scenario, tags: opts.tag });
      const targets = loadAllTargets().map(({ decl }) => ({
        name: decl.name,
        package: decl.package ? `${decl.package.npm}@${decl.package.version}` : `local: ${decl.server.command}`,
        installed: isInstalled(decl),
        claims: decl.claims,
      }));
      if (opts.json) {
        const out = {
          scenarios: scenarios.map(({ file, scenario: s }) => ({
            id: s.id,
            title: s.title,
            tags: s.tags,
            layers: scenarioLayers(s),
            file,
          })),
          targets,
        };
        return void process.stdout.write(JSON.stringify(out, null, 2) + '\n');
      }
      process.stdout.write(chalk.bold('Scenarios\n'));
      const w = Math.max(...scenarios.map((s) => s.scenario.id.length), ...targets.map((t) => t.name.length), 2);
      const tw = Math.max(...scenarios.map((s) => s.scenario.tags.join(', ').length), 4);
      for (const { scenario: s } of scenarios) {
        const l = scenarioLayers(s);
        const layers = `deterministic${l.includes('violation') ? '+violation' : ''}${l.includes('real-model') ? ', real-model' : ''}`;
        process.stdout.write(
          `  ${s.id.padEnd(w)}  ${chalk.dim(layers.padEnd(36))} ${s.tags.join(', ').padEnd(tw)}  ${chalk.dim(s.title)}\n`,
        );
      }
      process.stdout.write(chalk.bold('\nTargets\n'));
      for (const t of targets)
        process.stdout.write(
          `  ${t.name.padEnd(w)}  ${t.package}  ${t.installed ? chalk.green('installed') : chalk.yellow('not installed')}\n`,
        );
    });
}
