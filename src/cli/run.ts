import { availableParallelism } from 'node:os';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import { Option } from 'commander';
import chalk from 'chalk';
import { run } from '../app/api.js';
import { SCRIPTED_POLICIES, type ScriptedPolicy } from '../core/results.js';
import { SCRIPTED_MODEL } from '../agent/cost-gate.js';
import { AGENT_NAMES, DEFAULT_MCP_TIMEOUT_MS } from '../agent/types.js';
import { formatRepeats } from '../report/console.js';
import { formatGate, gate as applyGate, readBaseline, readExpectedFailures, type FailOn, type GateInput, type GateResult } from '../report/gate.js';
import { colorLevel, formatRecap, Progress } from '../report/progress.js';
import { readReport } from '../report/reader.js';
import { checkReporterNames, REPORTER_NAMES, runReporters } from '../report/reporters/index.js';
import { writeJsonAtomic } from '../report/write.js';
import { parseShard } from '../run/shard.js';
import { EXIT } from '../core/results.js';
import { loadConfig } from './config.js';
import { formatMatrix } from '../report/matrix.js';
import { DEFAULT_TARGET } from '../targets/loader.js';
import { BUILTIN_SCENARIOS } from '../util/paths.js';
import { interruptHandler } from './interrupt.js';
import { collectList, positiveInt, type CliContext } from './options.js';

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
  policy: ScriptedPolicy;
  baseUrl?: string;
  promptTimeout: number;
  mcpTimeout: number;
  tag?: string[];
  reporter?: string[];
  baseline?: string;
  failOn?: FailOn;
  expectedFailures?: string;
  shard?: string;
  shardDurations?: string;
  judgeModel?: string;
  judgeBaseUrl?: string;
  judgeProtocol?: string;
}

export function registerRun(program: Command, cli: CliContext): void {
  program
    .command('run')
    .description('replay the scenarios through the real memory server(s) in throwaway fixtures and judge the end state')
    .option('--scenario <ids>', "run only these scenario ids or globs, e.g. 'secret-*' (repeat or comma-separate)", collectList)
    .option('--tag <tags>', 'run only scenarios with any of these tags (repeat or comma-separate)', collectList)
    .option('--scenarios <dir>', 'folder of scenario files', BUILTIN_SCENARIOS)
    .option('--target <names>', `target(s) to run against, or "all" (repeat or comma-separate; default ${DEFAULT_TARGET})`, collectList)
    .option('--workers <n>', 'cells run in parallel (default: number of cores)', positiveInt, availableParallelism())
    .option('--keep', 'keep each fixture and print its path')
    .option('--json', 'print the report as JSON on stdout (progress goes to stderr); same as --reporter json')
    .option('--reporter <names>', `reporters after the run (repeat or comma-separate): ${REPORTER_NAMES.join(', ')}`, collectList)
    .option('--baseline <run-dir|file>', 'a previous whole run of this memeval version: a cell failing there the same way (verdict and failing assertions) is not a regression')
    .option('--expected-failures <file>', 'JSON/JSON5 list of {scenario, target, phase, [agent], verdict, assertions, [reason_contains], reason}: cells that may fail that way without failing the run')
    .addOption(new Option('--fail-on <what>', 'what fails the run (default: regressions with --baseline or --expected-failures, else failures)').choices(['regressions', 'failures']))
    .option('--shard <i/n>', 'run only the i-th of n deterministic slices of the cells and write a partial report (combine with `memeval merge`)')
    .option('--shard-durations <run-dir|file>', 'a previous report: balance the shards by its recorded cell durations (give every shard the same one)')
    .option('--out <dir>', 'where run directories are written', 'runs')
    .option('--install', 'install targets (and the agent) that are not installed yet, instead of stopping')
    .option('--agent-turn', "real-model layer: run the scenarios' prompts through a real agent CLI")
    .option('--agent <name>', `agent CLI for --agent-turn: ${AGENT_NAMES.join(', ')}`)
    .option('--model <id>', `model id for the agent; "${SCRIPTED_MODEL}" is memeval's free loopback scripted model`)
    .option('--i-understand-model-cost', 'allow real (paid) model turns and judge calls; required with --agent-turn unless --model scripted, and for a judge off this machine')
    .option('--repeat <n>', 'run each real-model scenario N times (pass rate, pass^N, Wilson interval)', positiveInt, 1)
    .option('--max-turns <n>', "cap on the agent's turns per prompt (default: the scenario's max_turns)", positiveInt)
    .addOption(new Option('--policy <policy>', 'what the scripted model replays').choices([...SCRIPTED_POLICIES]).default('well-behaved'))
    .option('--base-url <url>', "the model endpoint for the agent (default: the agent's own)")
    .option('--prompt-timeout <ms>', 'per-prompt timeout for agent turns', positiveInt, 300000)
    .option('--mcp-timeout <ms>', "how long each agent waits for the memory server to start and list its tools", positiveInt, DEFAULT_MCP_TIMEOUT_MS)
    .option('--judge-model <id>', 'model that judges llm assertions: "scripted" (free, deterministic) or a model id (env MEMEVAL_JUDGE_MODEL)')
    .option('--judge-base-url <url>', 'OpenAI-compatible or Anthropic endpoint of the judge (env MEMEVAL_JUDGE_BASE_URL; key from MEMEVAL_JUDGE_API_KEY, OPENAI_API_KEY or ANTHROPIC_API_KEY)')
    .option('--judge-protocol <p>', 'openai-chat or anthropic-messages (default: guessed; env MEMEVAL_JUDGE_PROTOCOL)')
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
    .action(async (flags: RunFlags, cmd: Command) => {
      applyConfig(flags, cmd);
      const startedAt = Date.now();
      const reporters = checkReporterNames([...(flags.reporter ?? ['console']), ...(flags.json ? ['json'] : [])]);
      flags.json = reporters.includes('json');
      // everything the gate and the shard need is read before anything runs: bad input is exit 3
      const gateInput: GateInput | undefined =
        flags.baseline || flags.expectedFailures || flags.failOn
          ? {
              baseline: flags.baseline ? readBaseline(flags.baseline) : undefined,
              expected: flags.expectedFailures ? readExpectedFailures(flags.expectedFailures) : undefined,
              failOn: flags.failOn,
            }
          : undefined;
      const shard = flags.shard
        ? { ...parseShard(flags.shard), durations: flags.shardDurations ? new Map(readReport(flags.shardDurations).results.map((r) => [r.cell_id, r.duration_ms])) : undefined }
        : undefined;
      const stream = flags.json ? process.stderr : process.stdout;
      const log = (s: string) => stream.write(s + '\n');
      const tty = Boolean(stream.isTTY);
      let progress: Progress | undefined;
      const { abort, dispose } = interruptHandler(log, cli.hardExit);
      try {
        const r = await run({
          scenariosDir: flags.scenarios,
          scenarioIds: flags.scenario,
          tags: flags.tag,
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
          mcpTimeoutMs: flags.mcpTimeout,
          shard,
          judgeModel: flags.judgeModel,
          judgeBaseUrl: flags.judgeBaseUrl,
          judgeProtocol: flags.judgeProtocol,
          signal: abort.signal,
          onPlan: (total) => (progress = new Progress({ total, tty, color: colorLevel(process.env, tty), write: (s) => stream.write(s) })),
          onResult: (c) => progress?.cell(c),
          log: (s) => log(chalk.dim(s)),
        });
        progress?.end();
        const { report, reportPath } = r;
        if (report.status === 'blocked') {
          if (flags.json) process.stdout.write(JSON.stringify(report, null, 2) + '\n');
          process.stderr.write(chalk.yellow(`blocked: ${report.reason}\n`) + chalk.dim(`report: ${reportPath}\n`));
          cli.exitCode = r.exitCode;
          return;
        }
        let gated: GateResult | undefined;
        if (gateInput) {
          // the report says what the CLI exits with, so the gate's decision goes into it
          gated = applyGate(report, gateInput);
          report.summary.exit_code = gated.exit_code;
          Object.assign(report, { gate: gated });
          writeJsonAtomic(reportPath, report);
        }
        // report.json is on disk already: a reporter that breaks loses only its own output
        const scenarioFiles = Object.fromEntries(r.scenarios.map((s) => [s.scenario.id, s.file]));
        const outcomes = runReporters(report, dirname(reportPath), reporters, { scenarioFiles });
        for (const o of outcomes) if (o.error) process.stderr.write(chalk.red(`reporter ${o.name} failed: `) + o.error + '\n');
        const table = report.repeats && flags.repeat > 1 ? formatRepeats(report.repeats) : report.targets.length > 1 ? formatMatrix(report.matrix) : undefined;
        if (table) log('\n' + table + '\n');
        for (const w of report.warnings) log(chalk.yellow(`warning: ${w}`));
        log(formatRecap(report, reportPath, Date.now() - startedAt, progress?.c ?? chalk));
        if (gated) for (const l of formatGate(gated, report.results)) log(l);
        cli.exitCode = report.summary.exit_code !== EXIT.ok ? report.summary.exit_code : outcomes.some((o) => o.error) ? EXIT.failed : EXIT.ok;
      } finally {
        dispose();
      }
    });
}

/** Defaults from memeval.config.json or package.json "memeval"; what the command line says wins. */
function applyConfig(flags: RunFlags, cmd: Command): void {
  const loaded = loadConfig();
  if (!loaded) return;
  const c = loaded.config;
  const unset = (key: string) => cmd.getOptionValueSource(key) !== 'cli';
  if (c.scenarios && unset('scenarios')) flags.scenarios = c.scenarios;
  if (c.targets && unset('target')) flags.target = c.targets;
  if (c.reporters && unset('reporter')) flags.reporter = c.reporters;
  if (c.baseline && unset('baseline')) flags.baseline = c.baseline;
  if (c.expected_failures && unset('expectedFailures')) flags.expectedFailures = c.expected_failures;
  if (c.fail_on && unset('failOn')) flags.failOn = c.fail_on;
  if (c.out && unset('out')) flags.out = c.out;
  if (c.workers && unset('workers')) flags.workers = c.workers;
}
