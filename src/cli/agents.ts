import type { Command } from 'commander';
import chalk from 'chalk';
import { DRIVERS, getDriver, installAgents, resolveAgentBin } from '../agent/registry.js';
import { cacheDir } from '../targets/cache.js';


export function registerAgents(program: Command): void {
  const agents = program.command('agents').description('list and install the coding-agent CLIs the real-model layer drives');
  agents
    .command('list')
    .description('each agent: package and pinned version, installed or not')
    .action(() => {
      const w = Math.max(...DRIVERS.map((d) => d.name.length));
      for (const d of DRIVERS) {
        const inst = resolveAgentBin(d) ? chalk.green('installed    ') : chalk.yellow('not installed');
        process.stdout.write(`${d.name.padEnd(w)}  ${inst}  ${d.npm}@${d.version}\n`);
      }
      process.stdout.write(chalk.dim(`cache: ${cacheDir()}\n`));
    });
  agents
    .command('install')
    .description('install pinned agent CLIs with npm into the per-user cache (idempotent)')
    .argument('<names...>', 'agent names, or "all"')
    .action(async (names: string[]) => {
      const drivers = names.includes('all') ? DRIVERS : names.map(getDriver);
      await installAgents(drivers, (s) => process.stdout.write(s + '\n'));
    });
}
