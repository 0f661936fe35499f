import { resolve } from 'node:path';
import type { Command } from 'commander';
import { Option } from 'commander';
import type { Report as LegacyReport } from '../report/report.js';
import { formatClosing } from '../report/console.js';
import { formatGate, gate, readBaseline, readExpectedFailures, type FailOn } from '../report/gate.js';
import { writeHtmlReport } from '../report/html/view.js';
import { formatMatrix } from '../report/matrix.js';
import { mergeReports } from '../report/merge.js';
import { readRun } from '../report/reader.js';
import { checkReporterNames, runReporters } from '../report/reporters/index.js';
import { writeJsonAtomic } from '../report/write.js';
import { EXIT } from '../core/results.js';
import { collectList, type CliContext } from './options.js';

export function registerMerge(program: Command, cli: CliContext): void {
  program
    .command('merge')
    .argument('<run-dirs...>', 'partial runs (shards, or one job per target) of the same memeval version and scenarios')
    .description(
      'combine partial runs into one run: report, scoreboard and HTML page; refuses (exit 3) missing or overlapping cells, other memeval versions, scenario sets or scenario/target files; a blocked or interrupted part exits 2 / 130',
    )
    .option('--out <dir>', 'where the merged run directory is written', 'runs')
    .option('--reporter <names>', 'reporters for the merged run (json, junit, markdown, github)', collectList)
    .option('--baseline <run-dir|file>', 'a previous whole run: a cell failing there the same way is not a regression')
    .option('--expected-failures <file>', 'cells that may fail the way listed (verdict, failing assertions) without failing the run')
    .addOption(new Option('--fail-on <what>', 'regressions or failures').choices(['regressions', 'failures']))
    .action((dirs: string[], opts: { out: string; reporter?: string[]; baseline?: string; expectedFailures?: string; failOn?: FailOn }) => {
      const reporters = checkReporterNames(opts.reporter ?? ['console']);
      const parts = dirs.map((d) => readRun(d));
      const gateInput =
        opts.baseline || opts.expectedFailures || opts.failOn
          ? { baseline: opts.baseline ? readBaseline(opts.baseline) : undefined, expected: opts.expectedFailures ? readExpectedFailures(opts.expectedFailures) : undefined, failOn: opts.failOn }
          : undefined;
      const { report, runDir, reportPath } = mergeReports(parts, resolve(opts.out));
      const log = (s: string) => (reporters.includes('json') ? process.stderr : process.stdout).write(s + '\n');
      if (gateInput) {
        const g = gate(report, gateInput);
        report.summary.exit_code = g.exit_code;
        Object.assign(report, { gate: g });
        writeJsonAtomic(reportPath, report);
        for (const l of formatGate(g, report.results)) log(l);
      }
      const html = writeHtmlReport(report, runDir);
      const outcomes = runReporters(report, runDir, reporters);
      for (const o of outcomes) if (o.error) process.stderr.write(`reporter ${o.name} failed: ${o.error}\n`);
      const legacy = report as unknown as LegacyReport;
      if (report.status === 'blocked') process.stderr.write(`blocked: ${report.reason}\n`);
      log(`merged ${parts.length} run(s): ${report.results.length} cell(s)\n`);
      log(formatMatrix(legacy.matrix) + '\n');
      log(`html: ${html}`);
      log(formatClosing(legacy, reportPath));
      cli.exitCode = report.summary.exit_code === 0 && !outcomes.some((o) => o.error) ? EXIT.ok : report.summary.exit_code || EXIT.failed;
    });
}
