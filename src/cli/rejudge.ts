import type { Command } from 'commander';
import chalk, { Chalk } from 'chalk';
import type { RejudgeResponse } from '../app/rejudge.js';
import { InputError } from '../util/errors.js';
import { addJudgeOptions, type JudgeOptionFlags } from './judge-options.js';
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
    const startedAt = Date.now();
    const { rejudge } = await import('../app/rejudge.js');
    const { cellLine, colorLevel } = await import('../report/progress.js');
    const { formatRunEnd } = await import('../report/run-end.js');
    const { formatVerdictChanges, verdictChanges } = await import('../report/verdict-changes.js');
    const { interruptHandler } = await import('./interrupt.js');
    const { abort, dispose } = interruptHandler((s) => process.stderr.write(s + '\n'), cli.hardExit);
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
    const tty = Boolean(process.stdout.isTTY);
    const c = new Chalk({ level: colorLevel(process.env, tty) });
    const log = (s: string) => process.stdout.write(s + '\n');
    log(
      `re-judged run ${source.run_id} (${r.runDir})${r.judge ? ` with judge ${r.judge.model}` : ' without a judge model'}`,
    );
    // one line per cell, as `run` prints them off a terminal
    for (const [i, cell] of report.results.entries()) {
      log(`[${i + 1}/${report.results.length}] ${cellLine(cell, c, true)}`);
      const note = (cell as { rejudge?: { rejudged: boolean; why?: string } }).rejudge;
      if (note && !note.rejudged) log(c.dim(`    not re-judged: ${note.why}`));
    }
    for (const l of formatVerdictChanges(verdictChanges(source.results, report.results), c)) log(l);
    if (source.status !== 'completed')
      log(
        c.yellow(
          `the run was ${source.status}${source.reason ? ` (${source.reason})` : ''}: re-judging keeps its status and exit code ${report.summary.exit_code}`,
        ),
      );
    if (abort.signal.aborted)
      log(
        c.yellow(`interrupted: the cells not reached keep the run's verdicts; exit code ${report.summary.exit_code}`),
      );
    for (const l of formatRunEnd(report, r.reportPath, Date.now() - startedAt, c)) log(l);
  });
}
