import type { Command } from 'commander';
import { Option } from 'commander';
import type { Report as LegacyReport } from '../report/report.js';
import type { FailOn } from '../report/gate.js';
import { collectList, type CliContext } from './options.js';

export function registerMerge(program: Command, cli: CliContext): void {
  program
    .command('merge')
    .argument('<run-dirs...>', 'partial runs (shards, or one job per target) of the same memeval version and scenarios')
    .description(
      'combine partial runs into one run: report, scoreboard and HTML page; refuses (exit 3) missing or overlapping cells, other memeval versions, scenario sets, scenario/target files or options that change verdicts (--judge-level, --retries, --fail-on, ...), and a target of --intended-targets with no part; a blocked or interrupted part exits 2 / 130',
    )
    .option('--out <dir>', 'where the merged run directory is written', 'runs')
    .option('--reporter <names>', 'reporters for the merged run (json, junit, markdown, github)', collectList)
    .option('--baseline <run-dir|file>', 'a previous whole run: a cell failing there the same way is not a regression')
    .option(
      '--expected-failures <file>',
      'cells that may fail the way listed (verdict, failing assertions) without failing the run',
    )
    .addOption(new Option('--fail-on <what>', 'regressions or failures').choices(['regressions', 'failures']))
    .action(
      async (
        dirs: string[],
        opts: { out: string; reporter?: string[]; baseline?: string; expectedFailures?: string; failOn?: FailOn },
      ) => {
        const { merge } = await import('../app/merge.js');
        const { formatClosing } = await import('../report/console.js');
        const { formatMatrix } = await import('../report/matrix.js');
        const { formatFailing } = await import('../report/progress.js');
        const { default: chalk } = await import('chalk');
        // with the json reporter the report alone goes to stdout
        const log = (s: string) =>
          ((opts.reporter ?? []).includes('json') ? process.stderr : process.stdout).write(s + '\n');
        const r = merge({
          runDirs: dirs,
          outDir: opts.out,
          reporters: opts.reporter,
          baseline: opts.baseline,
          expectedFailures: opts.expectedFailures,
          failOn: opts.failOn,
          log,
        });
        for (const o of r.reporters) if (o.error) process.stderr.write(`reporter ${o.name} failed: ${o.error}\n`);
        const legacy = r.report as unknown as LegacyReport;
        if (r.report.status === 'blocked') process.stderr.write(`blocked: ${r.report.reason}\n`);
        log(`merged ${r.parts} run(s): ${r.report.results.length} cell(s)\n`);
        log(formatMatrix(legacy.matrix) + '\n');
        log(`html: ${r.html}`);
        for (const o of r.reporters) for (const f of o.files) log(`${o.name}: ${f}`);
        // the cells that fail the merged run, as run's recap lists them (gate-aware)
        for (const l of formatFailing(r.report, chalk)) log(l);
        log(formatClosing(legacy, r.reportPath));
        cli.exitCode = r.exitCode;
      },
    );
}
