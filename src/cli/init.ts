import { relative } from 'node:path';
import type { Command } from 'commander';
import { initProject } from '../app/init.js';

export function registerInit(program: Command): void {
  program
    .command('init')
    .argument('[dir]', 'project folder', '.')
    .description('write a starter scenario (with its $schema line) and a memeval.config.json')
    .option('--force', 'overwrite files that exist')
    .action((dir: string, opts: { force?: boolean }) => {
      const files = initProject(dir, Boolean(opts.force));
      for (const f of Object.values(files)) process.stdout.write(`wrote ${relative(process.cwd(), f) || f}\n`);
      process.stdout.write('next: npx memeval run   (add --install the first time to install the target)\n');
    });
}
