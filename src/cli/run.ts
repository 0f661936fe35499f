import { availableParallelism } from 'node:os';
import type { Command } from 'commander';
import { Option } from 'commander';
import chalk from 'chalk';
import { run } from '../app/api.js';
import { SCRIPTED_MODEL } from '../agent/cost-gate.js';
import { AGENT_NAMES } from '../agent/types.js';
import { formatClosing, formatPhase, formatRepeats } from '../report/console.js';
import { formatMatrix } from '../report/matrix.js';
import { DEFAULT_TARGET } from '../targets/loader.js';
import { BUILTIN_SCENARIOS } from '../util/paths.js';
import { interruptHandler } from './interrupt.js';
import { collectList, positiveInt, type CliContext } from './main.js';

export interface RunFlags {
  scenario?: string[];
  scenarios: string;
  target?: string[];
  workers: number;
  keep?: boolean;
  json?: boolean;
  out: string;
  install?: boolean;
  agentTurn?: boolean;
  iUnderstandModelCost?: boolean;
  agent?: string;
  model?: string;
  repeat: number;
  maxTurns?: number;
  policy: 'well-behaved' | 'violation';
  baseUrl?: string;
  promptTimeout: number;
}

export function registerRun(program: Command, cli: CliContext): void {
  program
    .command('run')
    .description('replay the scenarios through the real memory server(s) in throwaway fixtures and judge the end state')
    .option('--scenario <ids>', 'run only these scenario ids (repeat or comma-separate)', collectList)
    .option('--scenarios <dir>', 'folder of scenario files', BUILTIN_SCENARIOS)
    .option('--target <names>', `target(s) to run against, or "all" (repeat or comma-separate; default ${DEFAULT_TARGET})`, collectList)
    .option('--workers <n>', 'cells run in parallel (default: number of cores)', positiveInt, availableParallelism())
    .option('--keep', 'keep each fixture and print its path')
    .option('--json', 'print the report as JSON on stdout (progress goes to stderr)')
    .option('--out <dir>', 'where run directories are written', 'runs')
    .option('--install', 'install targets (and the agent) that are not installed yet, instead of stopping')
    .option('--agent-turn', "real-model layer: run the scenarios' prompts through a real agent CLI")
    .option('--agent <name>', `agent CLI for --agent-turn: ${AGENT_NAMES.join(', ')}`)
    .option('--model <id>', `model id for the agent; "${SCRIPTED_MODEL}" is memeval's free loopback scripted model`)
    .option('--i-understand-model-cost', 'allow real (paid) model turns; required with --agent-turn unless --model scripted')
    .option('--repeat <n>', 'run each real-model scenario N times (pass rate, pass^N, Wilson interval)', positiveInt, 1)
    .option('--max-turns <n>', "cap on the agent's turns per prompt (default: the scenario's max_turns)", positiveInt)
    .addOption(new Option('--policy <policy>', 'what the scripted model replays').choices(['well-behaved', 'violation']).default('well-behaved'))
    .option('--base-url <url>', "the model endpoint for the agent (default: the agent's own)")
    .option('--prompt-timeout <ms>', 'per-prompt timeout for agent turns', positiveInt, 300000)
    .addHelpText(
      'after',
      `
Examples:
  memeval run                                          built-in scenarios against ${DEFAULT_TARGET}
  memeval run --target all                             every target, with a scoreboard
  memeval run --scenario secret-api-keys-not-stored --target memorix --keep
  memeval run --scenarios ./my-scenarios --json > report.json
  memeval run --agent-turn --agent claude-code --model scripted   a real agent on the free scripted model

Each cell runs in a fresh fixture (project dir + isolated HOME). The report is written to
<out>/<run-id>/report.json with the calls log and a copy of every store beside it.`,
    )
    .action(async (flags: RunFlags) => {
      const log = (s: string) => (flags.json ? process.stderr : process.stdout).write(s + '\n');
      const { abort, dispose } = interruptHandler(log, cli.hardExit);
      try {
        const r = await run({
          scenariosDir: flags.scenarios,
          scenarioIds: flags.scenario,
          targets: flags.target,
          workers: flags.workers,
          keep: flags.keep,
          outDir: flags.out,
          install: flags.install,
          agentTurn: flags.agentTurn,
          iUnderstandModelCost: flags.iUnderstandModelCost,
          agent: flags.agent,
          model: flags.model,
          repeat: flags.repeat,
          maxTurns: flags.maxTurns,
          policy: flags.policy,
          baseUrl: flags.baseUrl,
          promptTimeoutMs: flags.promptTimeout,
          signal: abort.signal,
          onResult: (c) => log(formatPhase(c)),
          log: (s) => log(chalk.dim(s)),
        });
        const { report, reportPath } = r;
        if (flags.json) process.stdout.write(JSON.stringify(report, null, 2) + '\n');
        if (report.status === 'blocked') process.stderr.write(chalk.yellow(`blocked: ${report.reason}\n`) + chalk.dim(`report: ${reportPath}\n`));
        else if (!flags.json) {
          const table = report.repeats && flags.repeat > 1 ? formatRepeats(report.repeats) : report.targets.length > 1 ? formatMatrix(report.matrix) : undefined;
          if (table) log('\n' + table + '\n');
          for (const w of report.warnings) log(chalk.yellow(`warning: ${w}`));
          log(formatClosing(report, reportPath));
        }
        cli.exitCode = r.exitCode;
      } finally {
        dispose();
      }
    });
}
