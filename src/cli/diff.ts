import type { Command } from 'commander';
import { diffRuns } from '../app/diff.js';
import { formatDiff } from '../report/diff.js';
import type { CliContext } from './options.js';

export function registerDiff(program: Command, cli: CliContext): void {
  program
    .command('diff')
    .argument('<run-a>', 'the earlier run (run directory or report.json)')
    .argument('<run-b>', 'the later run')
    .description(
      'cells that regressed (now failing the run, or checked before and not now), were fixed, changed verdict or were not checked between two runs, and new or removed cells; exit 1 when any regressed',
    )
    .option('--json', 'print the diff as JSON')
    .action((a: string, b: string, opts: { json?: boolean }) => {
      const { diff, exitCode } = diffRuns(a, b);
      process.stdout.write((opts.json ? JSON.stringify(diff, null, 2) : formatDiff(diff)) + '\n');
      cli.exitCode = exitCode;
    });
}
