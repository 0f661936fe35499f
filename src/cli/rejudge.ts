import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import chalk from 'chalk';
import { EXIT } from '../core/results.js';
import { loadScenarioDir } from '../app/load.js';
import { openJudgeModel } from '../judge/llm/client.js';
import { JudgePool, judgeGateAll } from '../judge/llm/pool.js';
import { rejudgeRun } from '../judge/rejudge/rejudge.js';
import { readReport } from '../report/reader.js';
import { formatPhase } from '../report/console.js';
import { writeJsonAtomic } from '../report/write.js';
import { newRunId } from '../report/report.js';
import { InputError } from '../util/errors.js';
import { BUILTIN_SCENARIOS } from '../util/paths.js';
import { addJudgeOptions, judgeFromFlags, type JudgeOptionFlags } from './judge-options.js';
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
      .description("judge a saved run again from its evidence (nothing is replayed) and write a new report naming the run it re-judged")
      .argument('<run-dir>', 'a run directory (or its report.json)')
      .option('--only <kind>', 're-judge only assertions that call a model: llm')
      .option('--scenarios <dir>', "scenario folder (default: the one the run used)")
      .option('--out <dir>', 'where the new report is written (default: beside the run)')
      .option('--json', 'print the new report as JSON'),
  ).action(async (runDirArg: string, f: RejudgeFlags) => {
    if (f.only !== undefined && f.only !== 'llm') throw new InputError(`--only: "${f.only}" is not supported (use --only llm)`);
    const report = readReport(runDirArg);
    const runDir = runDirArg.endsWith('.json') ? dirname(resolve(runDirArg)) : resolve(runDirArg);
    const scenariosDir = f.scenarios ?? (typeof report.options.scenarios_dir === 'string' ? report.options.scenarios_dir : BUILTIN_SCENARIOS);
    const scenarios = loadScenarioDir(scenariosDir);
    const { config } = judgeFromFlags(f);
    const gate = judgeGateAll(config, scenarios.flatMap((s) => s.scenario.assertions), Boolean(f.iUnderstandModelCost));
    const outDir = f.out ?? dirname(runDir);
    if (!gate.allowed) {
      const file = join(resolve(outDir), `rejudge-${newRunId()}`, 'report.json');
      writeJsonAtomic(file, { status: 'blocked', reason: gate.reason, rejudged_from: { run_id: report.run_id, run_dir: runDir }, judge_model: config });
      process.stderr.write(chalk.yellow(`blocked: ${gate.reason}\n`) + chalk.dim(`report: ${file}\n`));
      cli.exitCode = EXIT.blocked;
      return;
    }
    const pool = new JudgePool(config ? await openJudgeModel(config) : null);
    try {
      const r = await rejudgeRun(report, { runDir, scenarios, judgePool: pool, onlyLlm: f.only === 'llm', outDir });
      if (f.json) process.stdout.write(JSON.stringify(r.report, null, 2) + '\n');
      else {
        process.stdout.write(`re-judged run ${report.run_id} (${runDir})${config ? ` with judge ${config.model}` : ' without a judge model'}\n`);
        for (const c of r.report.results) {
          const note = (c as { rejudge?: { rejudged: boolean; why?: string; previous_outcome?: string } }).rejudge;
          process.stdout.write(formatPhase(c) + '\n');
          if (note && !note.rejudged) process.stdout.write(chalk.dim(`    not re-judged: ${note.why}\n`));
          else if (note?.previous_outcome && note.previous_outcome !== c.verdict) process.stdout.write(chalk.yellow(`    was ${note.previous_outcome}\n`));
        }
        if (report.status !== 'completed') process.stdout.write(chalk.yellow(`the run was ${report.status}${report.reason ? ` (${report.reason})` : ''}: re-judging keeps its status and exit code ${r.report.summary.exit_code}\n`));
        for (const w of r.report.warnings) process.stdout.write(chalk.yellow(`warning: ${w}\n`));
        process.stdout.write(chalk.dim(`report: ${r.reportPath}\n`));
      }
      // an interrupted or blocked run keeps its exit code: re-judging does not complete it
      cli.exitCode = r.report.summary.exit_code;
    } finally {
      await pool.close();
    }
  });
}
