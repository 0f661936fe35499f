import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import chalk from 'chalk';
import { InputError } from '../util/errors.js';
import { EXIT } from '../core/results.js';
import { newRunId } from '../report/report.js';
import { writeJsonAtomic } from '../report/write.js';
import { loadCalibrationFile } from '../judge/calibrate/cases.js';
import { formatCalibration, runCalibration } from '../judge/calibrate/run.js';
import { openJudgeModel } from '../judge/llm/client.js';
import { addJudgeOptions, judgeFromFlags, type JudgeOptionFlags } from './judge-options.js';
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
      .description('put labelled cases through the judge model and report accuracy, precision, recall, Cohen\'s kappa, the flip rate and every disagreement')
      .argument('<cases-file>', 'a calibration file (JSON5), e.g. eval/calibration/memory-hygiene.json5')
      .option('--repeat <n>', 'ask each case this many times (for the flip rate)', positiveInt, 1)
      .option('--out <dir>', 'where calibration results are written', 'runs')
      .option('--json', 'print the result as JSON'),
  ).action(async (casesFile: string, f: CalibrateFlags) => {
    const file = loadCalibrationFile(casesFile);
    const { config, gate } = judgeFromFlags(f);
    if (!config) throw new InputError('judge calibrate needs a judge model: --judge-model <id> (or --judge-model scripted), or MEMEVAL_JUDGE_MODEL');
    const dir = join(resolve(f.out), `calibrate-${newRunId()}`);
    if (!gate.allowed) {
      writeJsonAtomic(join(dir, 'calibration.json'), { status: 'blocked', reason: gate.reason, cases_file: resolve(casesFile), judge: config });
      process.stderr.write(chalk.yellow(`blocked: ${gate.reason}\n`) + chalk.dim(`written: ${join(dir, 'calibration.json')}\n`));
      cli.exitCode = EXIT.blocked;
      return;
    }
    const model = await openJudgeModel(config);
    try {
      const result = await runCalibration(file, resolve(casesFile), model, f.repeat);
      writeJsonAtomic(join(dir, 'calibration.json'), { status: 'completed', ...result });
      if (f.json) process.stdout.write(JSON.stringify(result, null, 2) + '\n');
      else process.stdout.write(formatCalibration(result) + chalk.dim(`written: ${join(dir, 'calibration.json')}\n`));
    } finally {
      await model.close();
    }
  });
}
