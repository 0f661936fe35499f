import { relative } from 'node:path';
import type { Command } from 'commander';
import { shellWord } from '../util/text.js';

export function registerInit(program: Command): void {
  program
    .command('init')
    .argument('[dir]', 'project folder', '.')
    .description('write a starter scenario (with its $schema line) and a memeval.config.json')
    .option('--force', 'overwrite files that exist')
    .action(async (dir: string, opts: { force?: boolean }) => {
      const { initProject, memevalCommandFor } = await import('../app/init.js');
      const files = initProject(dir, Boolean(opts.force));
      for (const f of Object.values(files)) process.stdout.write(`wrote ${relative(process.cwd(), f) || f}\n`);
      // the starter's target is memeval's own dependency: nothing to install first
      process.stdout.write(`next: ${dir === '.' ? '' : `cd ${shellWord(dir)} && `}${memevalCommandFor(dir)} run\n`);
    });
}
