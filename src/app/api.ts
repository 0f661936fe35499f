import { resolve } from 'node:path';
import { AGENT_DEFAULTS, RUN_DEFAULTS, runConfigSchema, type RunConfig, type RunConfigInput } from '../core/config.js';
import type { CellResult, Report, ReportOptions } from '../core/results.js';
import { costGate, SCRIPTED_MODEL, type GateDecision } from '../agent/cost-gate.js';
import { getAgent, installAgents, resolveAgentBin } from '../agent/registry.js';
import type { AgentAdapter } from '../agent/types.js';
import { AGENT_NAMES } from '../agent/types.js';
import { writeBlockedReport } from '../report/blocked.js';
import type { RepeatStats } from '../report/repeats.js';
import { installTargets, targetNames } from '../targets/install-many.js';
import { loadTargetRefs } from '../targets/version.js';
import { InputError, messageOf } from '../util/errors.js';
import { parseWith } from '../util/json5-file.js';
import { checkAgainstTargets, loadSelected, scenariosDirFor, withServers } from './load.js';
import { readBaseline, readExpectedFailures, type GateInput, type GateResult } from '../report/gate.js';
import { readReport } from '../report/reader.js';
import { durationCoverageWarning } from '../cell/shard.js';
import { checkReporterNames } from '../report/reporters/index.js';
import type { LoadedScenario } from '../scenario/loader.js';
import { runDeterministic, runRealModel } from './run.js';
import { lastFailed, type LastFailed } from './last-failed.js';
import { checkRunDirs } from './prechecks.js';
import { resolveJudgeConfig, type JudgeModelConfig } from '../judge/llm/config.js';
import { openJudgeModel } from '../judge/llm/client.js';
import { JudgePool, judgeGateAll, type JudgeStrictness } from '../judge/llm/pool.js';

/** What a caller hears while the run goes; not part of the config (nothing of it is reported). */
export interface RunHooks {
  signal?: AbortSignal;
  /** called once the cells are planned, with how many will run (for progress) */
  onPlan?: (cells: number) => void;
  onResult?: (r: CellResult) => void;
  /** progress lines (installs, the run's header) */
  log?: (line: string) => void;
}

/** A run's config (core/config.ts, every default there) and its hooks. */
export type RunRequest = RunConfigInput & RunHooks;

export interface RunResponse {
  report: Report & { repeats?: RepeatStats[]; gate?: GateResult };
  reportPath: string;
  /** what the CLI exits with: the report's own summary.exit_code (the gate's, with a baseline or expected failures) */
  exitCode: number;
  gate: GateDecision;
  /** the resolved config the run used */
  config: RunConfig;
  /** the scenarios selected (with their files, for reporters that point at them) */
  scenarios: LoadedScenario[];
}

/** The gate's inputs, read before anything runs: a bad baseline or list is exit 3, never "no gate". */
function exitGateOf(g: RunConfig['gate']): GateInput | undefined {
  if (!g || !(g.baseline || g.expectedFailures || g.failOn)) return undefined;
  return {
    baseline: g.baseline ? readBaseline(g.baseline) : undefined,
    expected: g.expectedFailures ? readExpectedFailures(g.expectedFailures) : undefined,
    failOn: g.failOn,
  };
}

/**
 * Run memeval as the CLI does: resolve the config, load and check every input (InputError before
 * anything runs), apply the cost gate (a blocked report and exit 2 before anything model-shaped
 * starts), then run the deterministic or the real-model layer, gate its exit code on the baseline
 * or expected failures, and write the report.
 */
/** What every layer's run is given, once the inputs are read and the gates have allowed it. */
interface Prepared {
  config: RunConfig;
  scenarios: LoadedScenario[];
  names: string[];
  judge: JudgeModelConfig | null;
  gate: GateDecision;
  hooks: Omit<RunHooks, 'log'>;
  log: (line: string) => void;
  common: {
    workers: number;
    keep: boolean;
    outDir: string;
    signal?: AbortSignal;
    onResult?: RunHooks['onResult'];
    config: RunConfig;
    exitGate?: GateInput;
    retries: number;
    lastFailed?: LastFailed;
    intendedTargets?: string[];
  };
}

export async function run(req: RunRequest = {}): Promise<RunResponse> {
  const { signal, onPlan, onResult, log: logTo, ...input } = req;
  const log = logTo ?? (() => {});
  const config = parseWith('run config', input, runConfigSchema);
  checkReporterNames(config.reporters);
  const exitGate = exitGateOf(config.gate);
  const shard = shardOf(config);
  const scenarios = loadSelected(config.scenariosDir, { ids: config.scenarioIds, tags: config.tags });
  const outDir = resolve(config.outDir);
  checkRunDirs(outDir);
  // read (and refused when it cannot say what failed) before anything runs; compared with this run's plan once planned
  const last = config.lastFailed ? lastFailed(outDir) : undefined;
  const judge = judgeOf(config);
  const gate = agentGate(config, judge);
  const blocked = (b: { report: Report; reportPath: string }): RunResponse => ({
    ...b,
    exitCode: b.report.summary.exit_code,
    gate,
    config,
    scenarios,
  });
  const judgeBlocked = judgeBlockedReport(config, judge, gate, scenarios, outDir);
  if (judgeBlocked) return blocked(judgeBlocked);
  if (gate.layer === 'real-model' && !gate.allowed)
    return blocked(agentBlockedReport(config, gate.reason, scenarios, outDir));
  const names = targetNames(config.targets.length ? config.targets : RUN_DEFAULTS.targets);
  const common = {
    workers: config.workers,
    keep: config.keep,
    outDir,
    signal,
    onResult,
    config,
    exitGate,
    retries: config.retries,
    lastFailed: last,
    ...(config.intendedTargets ? { intendedTargets: targetNames(config.intendedTargets) } : {}),
  };
  const prepared: Prepared = {
    config,
    scenarios,
    names,
    judge,
    gate,
    hooks: { signal, onPlan, onResult },
    log,
    common,
  };
  if (gate.layer === 'deterministic') return runDeterministicLayer(prepared, shard);
  if (shard)
    throw new InputError(
      '--shard: the real-model layer cannot be sharded yet; shard by --target or --scenario instead',
    );
  return runRealModelLayer(prepared, gate);
}

/** The shard to run, with the durations of an earlier run to balance it by. */
function shardOf(config: RunConfig) {
  if (!config.shard) return undefined;
  const durations = config.shardDurations
    ? new Map(
        readReport(config.shardDurations)
          // a cell the earlier run skipped (stopped before it ran) has no duration to balance by
          .results.filter((r) => r.verdict !== 'skipped')
          .map((r) => [r.cell_id, r.duration_ms]),
      )
    : undefined;
  return { ...config.shard, durations };
}

function judgeOf(config: RunConfig): JudgeModelConfig | null {
  try {
    return resolveJudgeConfig({
      judgeModel: config.judge?.model,
      judgeBaseUrl: config.judge?.baseUrl,
      judgeProtocol: config.judge?.protocol,
    });
  } catch (e) {
    throw new InputError(`--judge-protocol: ${messageOf(e)}`);
  }
}

/** The agent cost gate; --i-understand-model-cost given only for a remote judge does not ask for agent turns. */
function agentGate(config: RunConfig, judge: JudgeModelConfig | null): GateDecision {
  const agent = config.agent ?? AGENT_DEFAULTS;
  const flags = { agentTurn: agent.turn, agent: agent.name, model: agent.model };
  const forAgent = Boolean(flags.agentTurn || flags.agent || flags.model);
  return costGate({ ...flags, iUnderstandModelCost: judge && !forAgent ? false : config.iUnderstandModelCost });
}

/** A judge off this machine without the cost flag: a blocked report, nothing runs (checked before the agent's gate). */
function judgeBlockedReport(
  config: RunConfig,
  judge: JudgeModelConfig | null,
  gate: GateDecision,
  scenarios: LoadedScenario[],
  outDir: string,
): { report: Report; reportPath: string } | undefined {
  const judgeGate = judgeGateAll(
    judge,
    scenarios.flatMap((s) => s.scenario.assertions),
    config.iUnderstandModelCost,
  );
  if (judgeGate.allowed) return undefined;
  return writeBlockedReport(
    outDir,
    judgeGate.reason,
    scenarios.map((s) => s.scenario.id),
    { judge_model: judge, i_understand_model_cost: config.iUnderstandModelCost },
    gate.layer,
  );
}

/** Real agent turns the agent cost gate refused: a blocked report naming the scenarios that would have run. */
function agentBlockedReport(
  config: RunConfig,
  reason: string,
  scenarios: LoadedScenario[],
  outDir: string,
): { report: Report; reportPath: string } {
  const agent = config.agent ?? AGENT_DEFAULTS;
  // only the scenarios that would really have run: those with prompts for an agent
  const wouldRun = scenarios.filter((s) => s.scenario.real_model).map((s) => s.scenario.id);
  return writeBlockedReport(outDir, reason, wouldRun, {
    agent: agent.name ?? null,
    model: agent.model ?? null,
    agent_turn: agent.turn,
    i_understand_model_cost: config.iUnderstandModelCost,
    repeat: agent.repeat,
  });
}

/**
 * `--agent`: one agent, several comma-separated (each scenario runs through each, in one run), or
 * `all`: every installed agent (with --install, every agent memeval knows). Unknown or repeated
 * names are input errors, before anything runs.
 */
export function agentsNamed(spec: string, install: boolean): AgentAdapter[] {
  const names = spec.split(',').map((n) => n.trim());
  if (names.some((n) => !n))
    throw new InputError(
      `--agent: "${spec}" has an empty name; give names separated by commas, e.g. claude-code,codex`,
    );
  if (names.includes('all')) {
    if (names.length > 1) throw new InputError(`--agent: "all" goes alone, not in a list ("${spec}")`);
    const known = AGENT_NAMES.map((n) => getAgent(n));
    const chosen = install ? known : known.filter((d) => resolveAgentBin(d));
    if (!chosen.length)
      throw new InputError(
        `--agent all: no agent is installed; run \`memeval agents install all\` (or add --install), or name one of ${AGENT_NAMES.join(', ')}`,
      );
    return chosen;
  }
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) throw new InputError(`--agent: "${twice}" is named twice in "${spec}"`);
  return names.map((n) => getAgent(n));
}

/** Runs `fn` with a judge pool open on the run's judge model (with the run's strictness), closed however `fn` ends. */
async function withJudgePool<T>(
  judge: JudgeModelConfig | null,
  config: RunConfig,
  fn: (pool: JudgePool) => Promise<T>,
): Promise<T> {
  const pool = new JudgePool(judge ? await openJudgeModel(judge) : null, strictnessOf(config));
  try {
    return await fn(pool);
  } finally {
    await pool.close();
  }
}

/** --judge-level and --judge-min-confidence, as the judges read them. */
function strictnessOf(config: RunConfig): JudgeStrictness {
  return {
    ...(config.judge?.level ? { level: config.judge.level } : {}),
    ...(config.judge?.minConfidence !== undefined ? { minConfidence: config.judge.minConfidence } : {}),
  };
}

/**
 * The settings that can change a verdict, in the report's flat options (the resolved config keeps
 * them too), for either layer: `merge` refuses parts that differ in any (report/merge.ts VERDICT_OPTIONS).
 * --retries makes a cell flaky instead of failing; --fail-on flaky makes a flaky cell fail the run.
 */
function verdictOptions(config: RunConfig): ReportOptions {
  const g = config.gate;
  return {
    ...(config.judge?.level ? { judge_level: config.judge.level } : {}),
    ...(config.judge?.minConfidence !== undefined ? { judge_min_confidence: config.judge.minConfidence } : {}),
    retries: config.retries,
    fail_on: g?.failOn ?? (g?.baseline || g?.expectedFailures ? 'regressions' : 'failures'),
  };
}

function response(p: Prepared, r: { report: Report; reportPath: string }): RunResponse {
  return {
    report: r.report,
    reportPath: r.reportPath,
    exitCode: r.report.summary.exit_code,
    gate: p.gate,
    config: p.config,
    scenarios: p.scenarios,
  };
}

async function runDeterministicLayer(p: Prepared, shard: ReturnType<typeof shardOf>): Promise<RunResponse> {
  const { config, scenarios, names, log } = p;
  const loaded = await loadTargetRefs(names, log);
  if (config.install)
    await installTargets(
      loaded.map((t) => t.decl),
      log,
    );
  const targets = withServers(loaded);
  checkAgainstTargets(scenarios, targets);
  log(
    `memeval: ${scenarios.length} scenario(s) × ${targets.map((t) => t.decl.name).join(', ')}, ${p.common.workers} worker(s)`,
  );
  const r = await withJudgePool(p.judge, config, (judgePool) =>
    runDeterministic({
      ...p.common,
      judgePool,
      scenarios,
      targets,
      shard,
      repeat: config.agent?.repeat,
      onPlan: (cells, planned) => {
        if (shard) log(`memeval: shard ${shard.index}/${shard.count}: ${cells.length} of ${planned.length} cell(s)`);
        const low =
          shard?.durations &&
          durationCoverageWarning(
            planned.map((c) => c.id),
            shard.durations,
          );
        if (low) log(`memeval: warning: ${low}`);
        p.hooks.onPlan?.(cells.length);
      },
      options: {
        scenarios_dir: resolve(scenariosDirFor(config.scenariosDir)),
        judge_model: p.judge,
        ...verdictOptions(config),
        ...(shard ? { shard: `${shard.index}/${shard.count}` } : {}),
        ...(config.agent && config.agent.repeat > 1 ? { repeat: config.agent.repeat } : {}),
      },
    }),
  );
  return response(p, r);
}

async function runRealModelLayer(
  p: Prepared,
  gate: Extract<GateDecision, { layer: 'real-model'; allowed: true }>,
): Promise<RunResponse> {
  const { config, scenarios, names, log } = p;
  const agent = config.agent ?? AGENT_DEFAULTS;
  if (agent.name === undefined)
    throw new InputError(
      `--agent: required for the real-model layer; one of ${AGENT_NAMES.join(', ')}, several comma-separated, or all`,
    );
  const adapters = agentsNamed(agent.name, config.install);
  const withPrompts = scenarios.filter((s) => s.scenario.real_model);
  if (!withPrompts.length)
    throw new InputError('--agent-turn: none of the selected scenarios has a real_model block (see `memeval list`)');
  if (!gate.scripted && !agent.model)
    throw new InputError('--model: required for a real model (or use --model scripted)');
  const loaded = await loadTargetRefs(names, log);
  if (config.install) {
    await installTargets(
      loaded.map((t) => t.decl),
      log,
    );
    await installAgents(adapters, log);
  }
  const targets = withServers(loaded);
  checkAgainstTargets(withPrompts, targets);
  const agents = adapters.map((adapter) => {
    const bin = resolveAgentBin(adapter);
    if (!bin)
      throw new InputError(
        `--agent: ${adapter.name} (${adapter.npm}@${adapter.version}) is not installed; run \`memeval agents install ${adapter.name}\` (or add --install)`,
      );
    return { adapter, agentBin: bin.file, agentVersion: bin.version };
  });
  log(
    `memeval: real-model layer, ${agents.map((a) => `${a.adapter.name} ${a.agentVersion}`).join(', ')} with ${gate.scripted ? `memeval's scripted model (policy ${agent.policy})` : `model ${agent.model}`}, ` +
      `${withPrompts.length} scenario(s) × ${targets.map((t) => t.decl.name).join(', ')}${agents.length > 1 ? ` × ${agents.length} agents` : ''} × ${agent.repeat}, ${p.common.workers} worker(s)`,
  );
  const r = await withJudgePool(p.judge, config, (judgePool) =>
    runRealModel({
      ...p.common,
      judgePool,
      onPlan: (cells) => p.hooks.onPlan?.(cells.length),
      options: {
        judge_model: p.judge,
        ...verdictOptions(config),
        scenarios_dir: resolve(scenariosDirFor(config.scenariosDir)),
        // how each agent cell is driven: a turn cap or timeout can end a cell in error
        ...(agent.maxTurns !== undefined ? { max_turns: agent.maxTurns } : {}),
        prompt_timeout_ms: agent.promptTimeoutMs,
        mcp_timeout_ms: agent.mcpTimeoutMs,
        ...(agent.baseUrl !== undefined ? { agent_base_url: agent.baseUrl } : {}),
      },
      gate,
      scenarios: withPrompts,
      targets,
      agents,
      model: agent.model ?? SCRIPTED_MODEL,
      baseUrl: agent.baseUrl,
      policy: agent.policy,
      repeat: agent.repeat,
      maxTurns: agent.maxTurns,
      promptTimeoutMs: agent.promptTimeoutMs,
      mcpTimeoutMs: agent.mcpTimeoutMs,
    }),
  );
  return response(p, r);
}
