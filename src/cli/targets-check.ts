import type { Command } from 'commander';
import chalk from 'chalk';
import { EXIT } from '../core/results.js';
import type { CheckPoint } from '../app/target-check.js';
import type { CliContext } from './options.js';
import { writeOut } from './output.js';

const COLOR: Record<CheckPoint['status'], (s: string) => string> = {
  pass: chalk.green,
  fail: chalk.red,
  skip: chalk.dim,
  unchecked: chalk.yellow,
};

/** `memeval targets check <name|file>`: one line per point; exit 0 when all hold, 1 otherwise. */
export function registerTargetsCheck(targets: Command, cli: CliContext): void {
  targets
    .command('check')
    .description(
      "run a declaration's ops once against its real server and say, point by point, whether the declaration is right",
    )
    .argument('<target>', 'a built-in target name, or a declaration file (.json5)')
    .option('--install', 'install the pinned package into the cache first')
    .option('--keep', "keep the check's dir (calls log, server stderr) and fixture")
    .option('--json', 'print the report as JSON')
    .option('--allow-unchecked', 'exit 0 even when a point that applies could not be checked (they are still listed)')
    .addHelpText(
      'after',
      "\nPoints: every op's tool is listed with the argument names used; remember is accepted and capture_id\n" +
        'matches, and two memories get two ids; the store file appears; every view runs and memories returns\n' +
        'both memories from the store, one row each, and no recall query (it is not a log of calls); recall\n' +
        'itemises to the memory, ranks each memory for its own word, and reads an unrelated query as the\n' +
        'declared empty form; forget removes its memory and only it; update writes the new text and the old\n' +
        'is no longer live; each claim is probed by a scenario that can run on the target.\n' +
        'A point that applies but could not be checked (?) fails the check unless --allow-unchecked is given.\n' +
        '\nExamples:\n  memeval targets check mcp-memory-keeper\n  memeval targets check ./my-server.json5 --install\n' +
        '\nExit codes: 0 every point holds, 1 a point failed or could not be checked, 3 unknown target or a\n' +
        'declaration that does not load.',
    )
    .action(
      async (target: string, opts: { install?: boolean; keep?: boolean; json?: boolean; allowUnchecked?: boolean }) => {
        const { checkTarget, formatPoint, summaryLine } = await import('../app/target-check.js');
        const { interruptHandler } = await import('./interrupt.js');
        const log = (s: string) => process.stderr.write(s + '\n');
        const { abort, dispose } = interruptHandler(log, cli.hardExit);
        try {
          const report = await checkTarget(target, { ...opts, signal: abort.signal, log });
          cli.exitCode = report.ok ? EXIT.ok : EXIT.failed;
          if (opts.json) return await writeOut(JSON.stringify(report, null, 2) + '\n');
          const lines = [
            chalk.bold(`${report.target} (${report.package})${report.file ? ` ${chalk.dim(report.file)}` : ''}`),
            ...report.points.map((p) => COLOR[p.status](formatPoint(p))),
            ...uncheckedLines(report.unchecked, report.allow_unchecked),
            `${report.ok ? chalk.green('ok') : chalk.red('failed')}: ${summaryLine(report.points)} (${(report.ms / 1000).toFixed(1)} s)`,
            ...(report.dir ? [chalk.dim(`kept: ${report.dir}`)] : []),
          ];
          await writeOut(lines.join('\n') + '\n');
        } finally {
          dispose();
        }
      },
    );
}

/** The points that could not be checked (each is listed above with why), and whether they fail the check. */
export function uncheckedLines(points: { subject: string; detail: string }[], allowed: boolean): string[] {
  if (!points.length) return [];
  const what = allowed ? 'allowed by --allow-unchecked' : 'they fail the check; --allow-unchecked accepts them';
  return [chalk.yellow(`not checked (${what}): ${points.map((p) => p.subject).join(', ')}`)];
}
