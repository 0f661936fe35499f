import { dirname } from 'node:path';
import type { Command } from 'commander';
import { Option } from 'commander';
import chalk from 'chalk';
import {
  AGENT_DEFAULTS,
  FAIL_ON,
  RUN_DEFAULTS,
  SCRIPTED_POLICIES,
  type RunConfigInput,
  type RunConfigKey,
} from '../core/config.js';
import { SCRIPTED_MODEL } from '../agent/cost-gate.js';
import { AGENT_NAMES } from '../agent/types.js';
import type { Progress } from '../report/progress.js';
import { checkReporterNames, REPORTER_NAMES, runReporters } from '../report/reporters/index.js';
import { parseShard } from '../cell/shard.js';
import { EXIT } from '../core/results.js';
import { configInput, loadConfig } from './config.js';
import { collectList, nonNegativeInt, positiveInt, unitInterval, type CliContext } from './options.js';

type CliOnly = 'json';

/**
 * The flags of `memeval run`, one per run config setting (core/config.ts RunConfigKey, groups as
 * `group.key`) in the order help shows them: a setting added to the config without a flag does
 * not compile. Defaults shown in help are the config's; the config fills them, not commander.
 */
const FLAGS = {
  scenarioIds: new Option(
    '--scenario <ids>',
    "run only these scenario ids or globs, e.g. 'secret-*' (repeat or comma-separate)",
  ).argParser(collectList),
  tags: new Option('--tag <tags>', 'run only scenarios with any of these tags (repeat or comma-separate)').argParser(
    collectList,
  ),
  scenariosDir: new Option('--scenarios <dir>', 'folder of scenario files').default(RUN_DEFAULTS.scenariosDir),
  targets: new Option(
    '--target <names>',
    `target(s) to run against, or "all" (repeat or comma-separate; default ${RUN_DEFAULTS.targets.join(', ')})`,
  ).argParser(collectList),
  workers: new Option('--workers <n>', 'cells run in parallel (default: number of cores)')
    .argParser(positiveInt)
    .default(RUN_DEFAULTS.workers),
  keep: new Option('--keep', 'keep each fixture and print its path'),
  json: new Option('--json', 'print the report as JSON on stdout (progress goes to stderr); same as --reporter json'),
  reporters: new Option(
    '--reporter <names>',
    `reporters after the run (repeat or comma-separate): ${REPORTER_NAMES.join(', ')}`,
  ).argParser(collectList),
  'gate.baseline': new Option(
    '--baseline <run-dir|file>',
    'a previous whole run of this memeval version: a cell failing there the same way (verdict and failing assertions) is not a regression',
  ),
  'gate.expectedFailures': new Option(
    '--expected-failures <file>',
    'JSON/JSON5 list of {scenario, target, phase, [agent], verdict, assertions, [reason_contains], reason}: cells that may fail that way without failing the run',
  ),
  'gate.failOn': new Option(
    '--fail-on <what>',
    'what fails the run (default: regressions with --baseline or --expected-failures, else failures; flaky: failures and flaky cells)',
  ).choices([...FAIL_ON]),
  retries: new Option(
    '--retries <n>',
    'rerun a cell that fails the run up to N times; one that then passes is flaky (never a pass)',
  )
    .argParser(nonNegativeInt)
    .default(RUN_DEFAULTS.retries),
  lastFailed: new Option(
    '--last-failed',
    'run only the cells that failed the run in the latest run under --out (give the same scenarios and targets)',
  ),
  shard: new Option(
    '--shard <i/n>',
    'run only the i-th of n deterministic slices of the cells and write a partial report (combine with `memeval merge`)',
  ),
  shardDurations: new Option(
    '--shard-durations <run-dir|file>',
    'a previous report: balance the shards by its recorded cell durations (give every shard the same one)',
  ),
  intendedTargets: new Option(
    '--intended-targets <names>',
    'this run is one part (e.g. one job of a CI target matrix) of a run over these targets, or "all": recorded in the report, so `memeval merge` refuses the parts when a target has none',
  ).argParser(collectList),
  outDir: new Option('--out <dir>', 'where run directories are written').default(RUN_DEFAULTS.outDir),
  install: new Option('--install', 'install targets (and the agent) that are not installed yet, instead of stopping'),
  'agent.turn': new Option('--agent-turn', "real-model layer: run the scenarios' prompts through a real agent CLI"),
  'agent.name': new Option(
    '--agent <names>',
    `agent CLI(s) for --agent-turn: ${AGENT_NAMES.join(', ')}; several comma-separated run each scenario through each in one run; all: every installed agent`,
  ),
  'agent.model': new Option(
    '--model <id>',
    `model id for the agent; "${SCRIPTED_MODEL}" is memeval's free loopback scripted model`,
  ),
  iUnderstandModelCost: new Option(
    '--i-understand-model-cost',
    'allow real (paid) model turns and judge calls; required with --agent-turn unless --model scripted, and for a judge off this machine',
  ),
  'agent.repeat': new Option(
    '--repeat <n>',
    'run each cell N times, in either layer (pass rate, pass^N, Wilson interval per cell)',
  )
    .argParser(positiveInt)
    .default(AGENT_DEFAULTS.repeat),
  'agent.maxTurns': new Option(
    '--max-turns <n>',
    "cap on the agent's turns per prompt (default: the scenario's max_turns)",
  ).argParser(positiveInt),
  'agent.policy': new Option('--policy <policy>', 'what the scripted model replays')
    .choices([...SCRIPTED_POLICIES])
    .default(AGENT_DEFAULTS.policy),
  'agent.baseUrl': new Option('--base-url <url>', "the model endpoint for the agent (default: the agent's own)"),
  'agent.promptTimeoutMs': new Option('--prompt-timeout <ms>', 'per-prompt timeout for agent turns')
    .argParser(positiveInt)
    .default(AGENT_DEFAULTS.promptTimeoutMs),
  'agent.mcpTimeoutMs': new Option(
    '--mcp-timeout <ms>',
    'how long each agent waits for the memory server to start and list its tools',
  )
    .argParser(positiveInt)
    .default(AGENT_DEFAULTS.mcpTimeoutMs),
  'judge.model': new Option(
    '--judge-model <id>',
    'model that judges llm assertions: "scripted" (free, deterministic) or a model id (env MEMEVAL_JUDGE_MODEL)',
  ),
  'judge.baseUrl': new Option(
    '--judge-base-url <url>',
    'OpenAI-compatible or Anthropic endpoint of the judge (env MEMEVAL_JUDGE_BASE_URL; key from MEMEVAL_JUDGE_API_KEY, OPENAI_API_KEY or ANTHROPIC_API_KEY)',
  ),
  'judge.protocol': new Option(
    '--judge-protocol <p>',
    'openai-chat or anthropic-messages (default: guessed; env MEMEVAL_JUDGE_PROTOCOL)',
  ),
  'judge.level': new Option(
    '--judge-level <level>',
    'strict run: "fail" makes every llm check (and jury or cascade with one) declared at level warn decide the verdict',
  ).choices(['fail']),
  'judge.minConfidence': new Option(
    '--judge-min-confidence <x>',
    "strict run: an llm judgment less sure than x (0..1) is error, not pass or fail, whatever the assertion's min_confidence",
  ).argParser(unitInterval),
} satisfies Record<RunConfigKey | CliOnly, Option>;

/** Flag values whose config form differs from what commander parsed. */
const FROM_FLAG: Partial<Record<RunConfigKey, (v: string) => unknown>> = { shard: parseShard };

export function registerRun(program: Command, cli: CliContext): void {
  const command = program
    .command('run')
    .description(
      'replay the scenarios through the real memory server(s) in throwaway fixtures and judge the end state',
    );
  for (const option of Object.values(FLAGS)) command.addOption(option);
  command
    .addHelpText(
      'after',
      `
Examples:
  memeval run                                          built-in scenarios against ${RUN_DEFAULTS.targets.join(', ')}
  memeval run --target all                             every target, with a scoreboard
  memeval run --scenario secret-api-keys-not-stored --target memorix --keep
  memeval run --scenarios ./my-scenarios --json > report.json
  memeval run --agent-turn --agent claude-code --model scripted   a real agent on the free scripted model

Each cell runs in a fresh fixture (project dir + isolated HOME). The report is written to
<out>/<run-id>/report.json with the calls log and a copy of every store beside it.`,
    )
    .action(async (flags: Record<string, unknown>, cmd: Command) => {
      const startedAt = Date.now();
      const { run } = await import('../app/api.js');
      const { interruptHandler } = await import('./interrupt.js');
      const { colorLevel, Progress } = await import('../report/progress.js');
      const { formatRunEnd } = await import('../report/run-end.js');
      const { NothingToRerun } = await import('../app/last-failed.js');
      const config = runConfigOf(flags, cmd);
      // --json is one more reporter; with it, progress goes to stderr and the report to stdout
      if (flags.json) config.reporters = [...(config.reporters ?? RUN_DEFAULTS.reporters), 'json'];
      const reporters = checkReporterNames(config.reporters ?? RUN_DEFAULTS.reporters);
      const json = reporters.includes('json');
      const stream = json ? process.stderr : process.stdout;
      const log = (s: string) => stream.write(s + '\n');
      const tty = Boolean(stream.isTTY);
      let progress: Progress | undefined;
      const { abort, dispose } = interruptHandler(log, cli.hardExit);
      try {
        const r = await run({
          ...config,
          signal: abort.signal,
          onPlan: (total) =>
            (progress = new Progress({
              total,
              tty,
              color: colorLevel(process.env, tty),
              write: (s) => stream.write(s),
            })),
          onResult: (c) => progress?.cell(c),
          log: (s) => log(chalk.dim(s)),
        }).catch((e: unknown) => {
          // like Playwright: the latest run planned these cells and none failed, so nothing runs, and that is no error
          if (!(e instanceof NothingToRerun)) throw e;
          log(e.message);
          return undefined;
        });
        if (!r) return;
        progress?.end();
        const { report, reportPath } = r;
        if (report.status === 'blocked') {
          if (json) process.stdout.write(JSON.stringify(report, null, 2) + '\n');
          process.stderr.write(chalk.yellow(`blocked: ${report.reason}\n`) + chalk.dim(`report: ${reportPath}\n`));
          cli.exitCode = r.exitCode;
          return;
        }
        // report.json is on disk already: a reporter that breaks loses only its own output
        const scenarioFiles = Object.fromEntries(r.scenarios.map((s) => [s.scenario.id, s.file]));
        const outcomes = runReporters(report, dirname(reportPath), reporters, { scenarioFiles });
        for (const o of outcomes)
          if (o.error) process.stderr.write(chalk.red(`reporter ${o.name} failed: `) + o.error + '\n');
          else for (const f of o.files) log(chalk.dim(`${o.name}: ${f}`));
        for (const l of formatRunEnd(report, reportPath, Date.now() - startedAt, progress?.c ?? chalk)) log(l);
        cli.exitCode =
          report.summary.exit_code !== EXIT.ok
            ? report.summary.exit_code
            : outcomes.some((o) => o.error)
              ? EXIT.failed
              : EXIT.ok;
      } finally {
        dispose();
      }
    });
}

/**
 * The run config the command line asks for: each flag given on it, else the setting from
 * memeval.config.json (or package.json "memeval"), else nothing (the config's default). A group
 * no flag or file sets stays absent (a deterministic run has no agent settings).
 */
function runConfigOf(flags: Record<string, unknown>, cmd: Command): RunConfigInput {
  const file = loadConfig();
  const fromFile = file ? configInput(file.config) : {};
  const config: Record<string, unknown> = {};
  for (const [key, option] of Object.entries(FLAGS)) {
    if (key === 'json') continue;
    const attr = option.attributeName();
    const value = cmd.getOptionValueSource(attr) === 'cli' ? flags[attr] : undefined;
    const parsed =
      value === undefined ? valueAt(fromFile, key) : (FROM_FLAG[key as RunConfigKey]?.(value as string) ?? value);
    if (parsed === undefined) continue;
    const [group, name] = key.split('.');
    if (name === undefined) config[group] = parsed;
    else config[group] = { ...(config[group] as object | undefined), [name]: parsed };
  }
  return config as RunConfigInput;
}

const valueAt = (o: object, key: string): unknown =>
  key.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], o);
