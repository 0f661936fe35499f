import type { Command } from 'commander';
import chalk from 'chalk';
import type { CalibrateResponse } from '../app/calibrate.js';
import { BUILTIN_CALIBRATION } from '../util/paths.js';
import { addJudgeOptions, type JudgeOptionFlags } from './judge-options.js';
import { positiveInt, type CliContext } from './options.js';

interface CalibrateFlags extends JudgeOptionFlags {
  repeat: number;
  out: string;
  json?: boolean;
}

export function registerJudge(program: Command, cli: CliContext): void {
  const judge = program.command('judge').description('measure and inspect the judges');
  addJudgeOptions(
    judge
      .command('calibrate')
      .description(
        "put labelled cases through the judge model and report accuracy, precision, recall, Cohen's kappa, the flip rate and every disagreement",
      )
      .argument('[cases-file]', "a calibration file (JSON5); default: memeval's own labelled memory-hygiene cases")
      .option('--repeat <n>', 'ask each case this many times (for the flip rate)', positiveInt, 1)
      .option('--out <dir>', 'where calibration results are written', 'runs')
      .option('--json', 'print the result as JSON'),
  ).action(async (given: string | undefined, f: CalibrateFlags) => {
    const { calibrate } = await import('../app/calibrate.js');
    const { formatCalibration } = await import('../judge/calibrate/run.js');
    const { interruptHandler } = await import('./interrupt.js');
    const casesFile = given ?? BUILTIN_CALIBRATION;
    const log = (s: string) => process.stderr.write(s + '\n');
    const { abort, dispose } = interruptHandler(log, cli.hardExit);
    let r: CalibrateResponse;
    try {
      r = await calibrate({ ...f, casesFile, outDir: f.out, signal: abort.signal });
    } finally {
      dispose();
    }
    cli.exitCode = r.exitCode;
    if (r.status === 'blocked') {
      process.stderr.write(chalk.yellow(`blocked: ${r.reason}\n`) + chalk.dim(`written: ${r.file}\n`));
      return;
    }
    if (r.status === 'interrupted')
      log(chalk.yellow(`interrupted after ${r.result.judgments.length} judgment(s): the figures cover those only`));
    if (f.json) process.stdout.write(JSON.stringify(r.result, null, 2) + '\n');
    else process.stdout.write(formatCalibration(r.result) + chalk.dim(`written: ${r.file}\n`));
  });
}
