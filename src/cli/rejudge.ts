import type { Command } from 'commander';
import chalk from 'chalk';
import { rejudge, type RejudgeResponse } from '../app/rejudge.js';
import { formatPhase } from '../report/console.js';
import { InputError } from '../util/errors.js';
import { addJudgeOptions, type JudgeOptionFlags } from './judge-options.js';
import { interruptHandler } from './interrupt.js';
import type { CliContext } from './options.js';

interface RejudgeFlags extends JudgeOptionFlags {
  only?: string;
  scenarios?: string;
  out?: string;
  json?: boolean;
}

export function registerRejudge(program: Command, cli: CliContext): void {
  addJudgeOptions(
    program
      .command('rejudge')
      .description(
        'judge a saved run again from its evidence (nothing is replayed) and write a new report naming the run it re-judged',
      )
      .argument('<run-dir>', 'a run directory (or its report.json)')
      .option('--only <kind>', 're-judge only assertions that call a model: llm')
      .option('--scenarios <dir>', 'scenario folder (default: the one the run used)')
      .option('--out <dir>', 'where the new report is written (default: beside the run)')
      .option('--json', 'print the new report as JSON'),
  ).action(async (runDirArg: string, f: RejudgeFlags) => {
    if (f.only !== undefined && f.only !== 'llm')
      throw new InputError(`--only: "${f.only}" is not supported (use --only llm)`);
    const log = (s: string) => process.stderr.write(s + '\n');
    const { abort, dispose } = interruptHandler(log, cli.hardExit);
    let r: RejudgeResponse;
    try {
      r = await rejudge({
        ...f,
        runDir: runDirArg,
        onlyLlm: f.only === 'llm',
        scenariosDir: f.scenarios,
        outDir: f.out,
        signal: abort.signal,
      });
    } finally {
      dispose();
    }
    cli.exitCode = r.exitCode;
    if (r.blocked) {
      process.stderr.write(chalk.yellow(`blocked: ${r.reason}\n`) + chalk.dim(`report: ${r.reportPath}\n`));
      return;
    }
    const { source, report } = r;
    if (f.json) return void process.stdout.write(JSON.stringify(report, null, 2) + '\n');
    process.stdout.write(
      `re-judged run ${source.run_id} (${r.runDir})${r.judge ? ` with judge ${r.judge.model}` : ' without a judge model'}\n`,
    );
    for (const c of report.results) {
      const note = (c as { rejudge?: { rejudged: boolean; why?: string; previous_outcome?: string } }).rejudge;
      process.stdout.write(formatPhase(c) + '\n');
      if (note && !note.rejudged) process.stdout.write(chalk.dim(`    not re-judged: ${note.why}\n`));
      else if (note?.previous_outcome && note.previous_outcome !== c.verdict)
        process.stdout.write(chalk.yellow(`    was ${note.previous_outcome}\n`));
    }
    if (source.status !== 'completed')
      process.stdout.write(
        chalk.yellow(
          `the run was ${source.status}${source.reason ? ` (${source.reason})` : ''}: re-judging keeps its status and exit code ${report.summary.exit_code}\n`,
        ),
      );
    if (abort.signal.aborted)
      process.stdout.write(
        chalk.yellow(
          `interrupted: the cells not reached keep the run's verdicts; exit code ${report.summary.exit_code}\n`,
        ),
      );
    for (const w of report.warnings) process.stdout.write(chalk.yellow(`warning: ${w}\n`));
    process.stdout.write(chalk.dim(`report: ${r.reportPath}\n`));
  });
}
