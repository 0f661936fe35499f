import type { Command } from 'commander';
import type { CliContext } from './options.js';

export function registerDiff(program: Command, cli: CliContext): void {
  program
    .command('diff')
    .argument('<run-a>', 'the earlier run (run directory or report.json)')
    .argument('[run-b]', 'the later run (with --columns: default run-a)')
    .description(
      'cells that regressed (now failing the run, or checked before and not now), fail differently (other failing verdict or assertions, other target version), were fixed, changed verdict or were not checked between two runs, and new or removed cells; --repeat cells are matched to their base cell; exit 1 when any regressed or fails differently, a new cell fails the run, or a cell checked in run-a has no result in run-b',
    )
    .option(
      '--columns <a,b>',
      'compare column a of run-a with column b of run-b (or of run-a), matched by scenario and phase: two versions of one target, e.g. --columns server-memory@2025.11.25,server-memory',
    )
    .option('--json', 'print the diff as JSON')
    .action(async (a: string, b: string | undefined, opts: { json?: boolean; columns?: string }) => {
      const { diffRuns } = await import('../app/diff.js');
      const { formatDiff } = await import('../report/diff.js');
      const { diff, exitCode } = diffRuns(a, b, opts.columns);
      process.stdout.write((opts.json ? JSON.stringify(diff, null, 2) : formatDiff(diff)) + '\n');
      cli.exitCode = exitCode;
    });
}
