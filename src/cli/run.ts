import { availableParallelism } from 'node:os';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { loadConfig } from './config.js';
import chalk from 'chalk';
import { InputError } from '../util/errors.js';
import { BUILTIN_SCENARIOS } from '../util/paths.js';
import { loadScenarios, scenarioFiles, type LoadedScenario } from '../scenario/loader.js';
import { DEFAULT_TARGET, loadTarget } from '../targets/loader.js';
import { NotInstalledError, resolveTargetBin } from '../targets/resolve-bin.js';
import { planCells, runDeterministic, type RunTarget } from '../replay/run.js';
import { parseShard, shardCells } from '../run/shard.js';
import { cellId } from '../core/cell-id.js';
import { formatRepeats } from '../report/console.js';
import { colorLevel, formatRecap, Progress } from '../report/progress.js';
import { selectScenarios } from '../scenario/select.js';
import { killAllNow } from '../fixture/processes.js';
import { collectList, EXIT, positiveInt } from './main.js';
import { Option } from 'commander';
import { costGate, SCRIPTED_MODEL, type GateDecision } from '../agent/cost-gate.js';
import { AGENT_NAMES, type AgentDriver } from '../agent/types.js';
import { getDriver, resolveAgentBin } from '../agent/registry.js';
import { installAgents } from './agents.js';
import { runAgents } from '../agent/run-agents.js';
import { writeBlockedReport } from '../report/blocked.js';
import { installTargets, targetNames } from './targets.js';
import { formatMatrix } from '../report/matrix.js';
import type { Report } from '../report/report.js';
import type { Report as CoreReport } from '../core/results.js';
import { readReport } from '../report/reader.js';
import { formatGate, gate as applyGate, readExpectedFailures, type FailOn, type GateInput, type GateResult } from '../report/gate.js';
import { writeJsonAtomic } from '../report/write.js';
import { checkReporterNames, REPORTER_NAMES, runReporters, type ReporterName } from '../report/reporters/index.js';

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
  reporter?: string[];
  baseline?: string;
  failOn?: FailOn;
  expectedFailures?: string;
  shard?: string;
  shardDurations?: string;
  tag?: string[];
}

export function resolveTargets(names: string[]): RunTarget[] {
  const problems: string[] = [];
  const out: RunTarget[] = [];
  for (const name of names) {
    const t = loadTarget(name);
    try {
      out.push({ ...t, bin: resolveTargetBin(t.decl) });
    } catch (e) {
      if (e instanceof NotInstalledError) problems.push(e.message);
      else throw e;
    }
  }
  if (problems.length) throw new InputError(problems.join('\n'), problems);
  return out;
}

export function registerRun(program: Command): void {
  program
    .command('run')
    .description('replay the scenarios through the real memory server(s) in throwaway fixtures and judge the end state')
    .option('--scenario <ids>', "run only these scenario ids or globs, e.g. 'secret-*' (repeat or comma-separate)", collectList)
    .option('--tag <tags>', 'run only scenarios with any of these tags (repeat or comma-separate)', collectList)
    .option('--scenarios <dir>', 'folder of scenario files', BUILTIN_SCENARIOS)
    .option('--target <names>', `target(s) to run against, or "all" (repeat or comma-separate; default ${DEFAULT_TARGET})`, collectList)
    .option('--workers <n>', 'phases run in parallel (default: number of cores)', positiveInt, availableParallelism())
    .option('--keep', 'keep each fixture and print its path')
    .option('--json', 'print the report as JSON on stdout (progress goes to stderr); same as --reporter json')
    .option('--baseline <run-dir|file>', 'a previous run: fail only on cells that regressed against it')
    .option('--expected-failures <file>', 'JSON/JSON5 list of {scenario, target, phase, reason} that may fail without failing the run')
    .addOption(new Option('--fail-on <what>', 'what fails the run (default: regressions with --baseline or --expected-failures, else failures)').choices(['regressions', 'failures']))
    .option('--shard <i/n>', 'run only the i-th of n deterministic slices of the cells and write a partial report (combine with `memeval merge`)')
    .option('--shard-durations <run-dir|file>', 'a previous report: balance the shards by its recorded cell durations')
    .option('--reporter <names>', `reporters after the run (repeat or comma-separate): ${REPORTER_NAMES.join(', ')}`, collectList)
    .option('--out <dir>', 'where run directories are written', 'runs')
    .option('--install', 'install targets (and the agent) that are not installed yet, instead of stopping')
    .option('--agent-turn', 'real-model layer: run the scenarios\' prompts through a real agent CLI')
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
      '\nEach phase runs in a fresh fixture (project dir + isolated HOME). The report is written to\n<out>/<run-id>/report.json with the calls log and a copy of every store beside it.',
    )
    .action(async (flags: RunFlags, cmd: Command) => {
      applyConfig(flags, cmd);
      const reporters = checkReporterNames([...(flags.reporter ?? ['console']), ...(flags.json ? ['json'] : [])]);
      flags.json = reporters.includes('json');
      const startedAt = Date.now();
      const scenarios = selectScenarios(loadScenarios(scenarioFiles(flags.scenarios)), { ids: flags.scenario, tags: flags.tag });
      if (flags.shard) parseShard(flags.shard);
      const files = Object.fromEntries(scenarios.map((s) => [s.scenario.id, s.file]));
      // read what the gate needs before anything runs: a bad baseline is exit 3, not a late surprise
      const gateInput: GateInput | undefined =
        flags.baseline || flags.expectedFailures || flags.failOn
          ? {
              baseline: flags.baseline ? readReport(flags.baseline).report : undefined,
              expected: flags.expectedFailures ? readExpectedFailures(flags.expectedFailures) : undefined,
              failOn: flags.failOn,
            }
          : undefined;
      const finish: FinishOptions = { reporters, scenarioFiles: files, gate: gateInput, startedAt };
      const log = (s: string) => (flags.json ? process.stderr : process.stdout).write(s + '\n');
      const gate = costGate(flags);
      if (gate.layer === 'real-model') {
        if (!gate.allowed) {
          // stop before anything model-shaped (or anything at all) is spawned
          const { report, reportPath } = writeBlockedReport(resolve(flags.out), gate.reason, scenarios.map((s) => s.scenario.id), {
            agent: flags.agent ?? null,
            model: flags.model ?? null,
            agent_turn: Boolean(flags.agentTurn),
            i_understand_model_cost: Boolean(flags.iUnderstandModelCost),
          });
          if (flags.json) process.stdout.write(JSON.stringify(report, null, 2) + '\n');
          process.stderr.write(chalk.yellow(`blocked: ${gate.reason}\n`) + chalk.dim(`report: ${reportPath}\n`));
          process.exit(EXIT.blocked);
        }
        if (flags.agent === undefined) throw new InputError('--agent: required for the real-model layer; one of ' + AGENT_NAMES.join(', '));
        return runRealModel(flags, gate, getDriver(flags.agent), scenarios, log, finish);
      }
      const names = targetNames(flags.target?.length ? flags.target : [DEFAULT_TARGET]);
      if (flags.install) await installTargets(names.map((n) => loadTarget(n).decl), log);
      const targets = resolveTargets(names);
      const shard = flags.shard ? planShard(flags, scenarios, targets) : undefined;

      const { abort, dispose } = interruptHandler(log);
      if (shard) log(chalk.dim(`memeval: shard ${shard.index}/${shard.count}: ${shard.cells.size} of ${shard.planned} cell(s)`));
      const progress = newProgress(flags, shard ? shard.cells.size : planCells(scenarios, targets).length);
      finish.progress = progress;

      log(chalk.dim(`memeval: ${scenarios.length} scenario(s) × ${targets.map((t) => t.decl.name).join(', ')}, ${flags.workers} worker(s)`));
      const { report, reportPath } = await runDeterministic({
        scenarios,
        targets,
        workers: flags.workers,
        keep: Boolean(flags.keep),
        outDir: resolve(flags.out),
        signal: abort.signal,
        onResult: (r) => progress.cell(r),
        options: { scenarios_dir: flags.scenarios, ...(shard ? { shard: flags.shard } : {}) },
        onlyCells: shard?.cells,
        extra: shard ? { shard: { index: shard.index, count: shard.count, planned: shard.planned } } : undefined,
      }).finally(dispose);
      finishRun(flags, report, reportPath, log, targets.length > 1 ? formatMatrix(report.matrix) : undefined, finish);
    });
}

/** This machine's slice of the planned cells; the same for every machine given the same flags. */
function planShard(flags: RunFlags, scenarios: LoadedScenario[], targets: RunTarget[]): { index: number; count: number; planned: number; cells: Set<string> } {
  const { index, count } = parseShard(flags.shard!);
  const planned = planCells(scenarios, targets).map((c) => cellId({ scenario: c.s.scenario.id, target: c.t.decl.name, phase: c.phase }));
  const durations = flags.shardDurations ? new Map(readReport(flags.shardDurations).report.results.map((r) => [r.cell_id, r.duration_ms])) : undefined;
  return { index, count, planned: planned.length, cells: new Set(shardCells(planned, { index, count }, durations)) };
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

interface FinishOptions {
  reporters: ReporterName[];
  scenarioFiles: Record<string, string>;
  gate?: GateInput;
  startedAt: number;
  progress?: Progress;
}

/** Progress goes where the console output goes: stderr when stdout carries the JSON report. */
function newProgress(flags: RunFlags, total: number): Progress {
  const stream = flags.json ? process.stderr : process.stdout;
  const tty = Boolean(stream.isTTY);
  return new Progress({ total, tty, color: colorLevel(process.env, tty), write: (s) => stream.write(s) });
}

/** Print how the run ended (or the report, with --json) and set the exit code; 130 after Ctrl-C. */
function finishRun(
  flags: RunFlags,
  report: Report,
  reportPath: string,
  log: (s: string) => void,
  table: string | undefined,
  { reporters, scenarioFiles, gate: gateInput, startedAt, progress }: FinishOptions,
): void {
  progress?.end();
  let gated: GateResult | undefined;
  if (gateInput) {
    // the report says what the CLI exits with, so the gate's decision goes into it
    gated = applyGate(report as unknown as CoreReport, gateInput);
    report.summary.exit_code = gated.exit_code;
    Object.assign(report, { gate: gated });
    writeJsonAtomic(reportPath, report);
  }
  // report.json is already on disk: a reporter that breaks loses only its own output
  const outcomes = runReporters(report as unknown as CoreReport, dirname(reportPath), reporters, { scenarioFiles });
  for (const o of outcomes) if (o.error) process.stderr.write(chalk.red(`reporter ${o.name} failed: `) + o.error + '\n');
  // with the json reporter, log writes to stderr: stdout holds only the report
  if (table) log('\n' + table + '\n');
  for (const w of report.warnings) log(chalk.yellow(`warning: ${w}`));
  log(formatRecap(report as unknown as CoreReport, reportPath, Date.now() - startedAt, progress?.c ?? chalk));
  if (gated) for (const l of formatGate(gated)) log(l);
  if (report.status === 'interrupted') process.exit(130);
  process.exitCode = report.summary.exit_code === 0 && !outcomes.some((o) => o.error) ? EXIT.ok : EXIT.failed;
}

/** Ctrl-C once: stop children, write the report; twice: quit now. */
function interruptHandler(log: (s: string) => void): { abort: AbortController; dispose: () => void } {
  const abort = new AbortController();
  let interrupts = 0;
  const onSignal = () => {
    interrupts++;
    if (interrupts === 1) {
      log(chalk.yellow('\ninterrupted: stopping servers and agents, removing fixtures, writing the report (Ctrl-C again to quit now)'));
      abort.abort();
      killAllNow();
    } else {
      killAllNow();
      process.exit(130);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    abort,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

async function runRealModel(
  flags: RunFlags,
  gate: GateDecision,
  driver: AgentDriver,
  scenarios: LoadedScenario[],
  log: (s: string) => void,
  finish: FinishOptions,
): Promise<void> {
  const withPrompts = scenarios.filter((s) => s.scenario.real_model);
  if (!withPrompts.length) throw new InputError('--agent-turn: none of the selected scenarios has a real_model block (see `memeval list`)');
  if (gate.layer !== 'real-model' || !gate.allowed) throw new Error('unreachable: the gate was checked');
  if (flags.shard) throw new InputError('--shard: the real-model layer cannot be sharded yet; shard by --target or --scenario instead');
  if (!gate.scripted && !flags.model) throw new InputError('--model: required for a real model (or use --model scripted)');
  const names = targetNames(flags.target?.length ? flags.target : [DEFAULT_TARGET]);
  if (flags.install) {
    await installTargets(names.map((n) => loadTarget(n).decl), log);
    await installAgents([driver], log);
  }
  const targets = resolveTargets(names);
  const bin = resolveAgentBin(driver);
  if (!bin) throw new InputError(`--agent: ${driver.name} (${driver.npm}@${driver.version}) is not installed; run \`memeval agents install ${driver.name}\` (or add --install)`);
  const { abort, dispose } = interruptHandler(log);
  const progress = newProgress(flags, withPrompts.length * targets.length * flags.repeat);
  finish.progress = progress;
  log(
    chalk.dim(
      `memeval: real-model layer, ${driver.name} ${bin.version} with ${gate.scripted ? `memeval's scripted model (policy ${flags.policy})` : `model ${flags.model}`}, ` +
        `${withPrompts.length} scenario(s) × ${targets.map((t) => t.decl.name).join(', ')} × ${flags.repeat}, ${flags.workers} worker(s)`,
    ),
  );
  const { report, reportPath } = await runAgents({
    gate,
    scenarios: withPrompts,
    targets,
    driver,
    agentBin: bin.file,
    agentVersion: bin.version,
    model: flags.model ?? SCRIPTED_MODEL,
    baseUrl: flags.baseUrl,
    policy: flags.policy,
    repeat: flags.repeat,
    maxTurns: flags.maxTurns,
    promptTimeoutMs: flags.promptTimeout,
    workers: flags.workers,
    keep: Boolean(flags.keep),
    outDir: resolve(flags.out),
    signal: abort.signal,
    onResult: (r) => progress.cell(r),
  }).finally(dispose);
  finishRun(flags, report, reportPath, log, flags.repeat > 1 ? formatRepeats(report.repeats) : undefined, finish);
}
