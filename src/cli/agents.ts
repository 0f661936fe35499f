import type { Command } from 'commander';
import chalk from 'chalk';
import { cacheDir } from '../targets/cache.js';

export function registerAgents(program: Command): void {
  const agents = program
    .command('agents')
    .description('list and install the coding-agent CLIs the real-model layer drives');
  agents
    .command('list')
    .description('each agent: package and pinned version, installed or not')
    .action(async () => {
      const { agentStatus } = await import('../app/agents.js');
      const all = agentStatus();
      const w = Math.max(...all.map((a) => a.name.length));
      for (const a of all) {
        const inst = a.installed ? chalk.green('installed    ') : chalk.yellow('not installed');
        process.stdout.write(`${a.name.padEnd(w)}  ${inst}  ${a.package}\n`);
      }
      process.stdout.write(chalk.dim(`cache: ${cacheDir()}\n`));
    });
  agents
    .command('install')
    .description('install pinned agent CLIs with npm into the per-user cache (idempotent)')
    .argument('<names...>', 'agent names, or "all"')
    .action(async (names: string[]) => {
      const { installAgentsNamed } = await import('../app/agents.js');
      await installAgentsNamed(names, (s) => process.stdout.write(s + '\n'));
    });
}
