import { resolve } from 'node:path';
import type { CellResult, Report, ScriptedPolicy } from '../core/results.js';
import { costGate, SCRIPTED_MODEL, type GateDecision } from '../agent/cost-gate.js';
import { getDriver, installAgents, resolveAgentBin } from '../agent/registry.js';
import { AGENT_NAMES, DEFAULT_MCP_TIMEOUT_MS } from '../agent/types.js';
import { writeBlockedReport } from '../report/blocked.js';
import type { RepeatStats } from '../report/repeats.js';
import { installTargets, targetNames } from '../targets/install-many.js';
import { DEFAULT_TARGET, loadTarget } from '../targets/loader.js';
import { InputError } from '../util/errors.js';
import { BUILTIN_SCENARIOS } from '../util/paths.js';
import { checkAgainstTargets, loadScenarioDir, resolveTargets } from './load.js';
import { planCells } from '../run/plan.js';
import { plannedCellId, shardCells, type Shard } from '../run/shard.js';
import type { LoadedScenario } from '../scenario/loader.js';
import { selectScenarios } from '../scenario/select.js';
import { runDeterministic, runRealModel } from './run.js';
import { checkRunDirs } from './prechecks.js';
import { resolveJudgeConfig, type JudgeModelConfig } from '../judge/llm/config.js';
import { openJudgeModel } from '../judge/llm/client.js';
import { JudgePool, judgeGateAll } from '../judge/llm/pool.js';

export interface RunRequest {
  /** folder of scenario files (default: the built-in ones) */
  scenariosDir?: string;
  /** scenario ids or globs (`secret-*`) */
  scenarioIds?: string[];
  /** keep scenarios carrying any of these tags */
  tags?: string[];
  /** run one deterministic slice of the planned cells; durations (by cell id) balance the slices */
  shard?: Shard & { durations?: Map<string, number> };
  /** called once the cells are planned, with how many will run (for progress) */
  onPlan?: (cells: number) => void;
  /** target names or declaration paths, or "all" (default: server-memory) */
  targets?: string[];
  workers?: number;
  keep?: boolean;
  outDir?: string;
  install?: boolean;
  agentTurn?: boolean;
  iUnderstandModelCost?: boolean;
  agent?: string;
  model?: string;
  repeat?: number;
  maxTurns?: number;
  policy?: ScriptedPolicy;
  baseUrl?: string;
  promptTimeoutMs?: number;
  /** how long an agent waits for the memory server to connect (default DEFAULT_MCP_TIMEOUT_MS) */
  mcpTimeoutMs?: number;
  /** the model for `llm` assertions ("scripted" or a model id; env MEMEVAL_JUDGE_MODEL) */
  judgeModel?: string;
  judgeBaseUrl?: string;
  judgeProtocol?: string;
  signal?: AbortSignal;
  onResult?: (r: CellResult) => void;
  /** progress lines (installs, the run's header) */
  log?: (line: string) => void;
}

export interface RunResponse {
  report: Report & { repeats?: RepeatStats[] };
  reportPath: string;
  /** what the CLI exits with: the report's own summary.exit_code */
  exitCode: number;
  gate: GateDecision;
  /** the scenarios selected (with their files, for reporters that point at them) */
  scenarios: LoadedScenario[];
}

/**
 * Run memeval as the CLI does: load and check every input (InputError before anything runs),
 * apply the cost gate (a blocked report and exit 2 before anything model-shaped starts), then
 * run the deterministic or the real-model layer and write the report.
 */
export async function run(req: RunRequest = {}): Promise<RunResponse> {
  const log = req.log ?? (() => {});
  const scenarios = selectScenarios(loadScenarioDir(req.scenariosDir ?? BUILTIN_SCENARIOS), { ids: req.scenarioIds, tags: req.tags });
  const outDir = resolve(req.outDir ?? 'runs');
  checkRunDirs(outDir);
  let judge: JudgeModelConfig | null;
  try {
    judge = resolveJudgeConfig(req);
  } catch (e) {
    throw new InputError(`--judge-protocol: ${(e as Error).message}`);
  }
  // --i-understand-model-cost given only for a remote judge does not ask for agent turns
  const forAgent = Boolean(req.agentTurn || req.agent || req.model);
  const gate = costGate({ ...req, iUnderstandModelCost: judge && !forAgent ? false : req.iUnderstandModelCost });
  const judgeGate = judgeGateAll(judge, scenarios.flatMap((s) => s.scenario.assertions), Boolean(req.iUnderstandModelCost));
  if (!judgeGate.allowed) {
    const { report, reportPath } = writeBlockedReport(outDir, judgeGate.reason, scenarios.map((s) => s.scenario.id), {
      judge_model: judge,
      i_understand_model_cost: Boolean(req.iUnderstandModelCost),
    }, gate.layer);
    return { report, reportPath, exitCode: report.summary.exit_code, gate, scenarios };
  }
  if (gate.layer === 'real-model' && !gate.allowed) {
    // only the scenarios that would really have run: those with prompts for an agent
    const wouldRun = scenarios.filter((s) => s.scenario.real_model).map((s) => s.scenario.id);
    const { report, reportPath } = writeBlockedReport(outDir, gate.reason, wouldRun, {
      agent: req.agent ?? null,
      model: req.model ?? null,
      agent_turn: Boolean(req.agentTurn),
      i_understand_model_cost: Boolean(req.iUnderstandModelCost),
      repeat: req.repeat ?? 1,
    });
    return { report, reportPath, exitCode: report.summary.exit_code, gate, scenarios };
  }
  const names = targetNames(req.targets?.length ? req.targets : [DEFAULT_TARGET]);
  const common = { workers: req.workers ?? 1, keep: Boolean(req.keep), outDir, signal: req.signal, onResult: req.onResult, judgePool: undefined as JudgePool | undefined };
  const withJudge = async <T>(fn: () => Promise<T>): Promise<T> => {
    common.judgePool = new JudgePool(judge ? await openJudgeModel(judge) : null);
    try {
      return await fn();
    } finally {
      await common.judgePool.close();
    }
  };

  if (gate.layer === 'deterministic') {
    if (req.install) await installTargets(names.map((n) => loadTarget(n).decl), log);
    const targets = resolveTargets(names);
    checkAgainstTargets(scenarios, targets);
    log(`memeval: ${scenarios.length} scenario(s) × ${targets.map((t) => t.decl.name).join(', ')}, ${common.workers} worker(s)`);
    const planned = planCells(scenarios, targets).map(plannedCellId);
    const only = req.shard ? new Set(shardCells(planned, req.shard, req.shard.durations)) : undefined;
    if (req.shard) log(`memeval: shard ${req.shard.index}/${req.shard.count}: ${only!.size} of ${planned.length} cell(s)`);
    req.onPlan?.(only ? only.size : planned.length);
    const r = await withJudge(() => runDeterministic({
      ...common,
      scenarios,
      targets,
      onlyCells: only,
      shard: req.shard ? { index: req.shard.index, count: req.shard.count } : undefined,
      options: { scenarios_dir: req.scenariosDir ?? BUILTIN_SCENARIOS, judge_model: judge, ...(req.shard ? { shard: `${req.shard.index}/${req.shard.count}` } : {}) },
      extra: req.shard ? { shard: { index: req.shard.index, count: req.shard.count, planned: planned.length } } : undefined,
    }));
    return { report: r.report, reportPath: r.reportPath, exitCode: r.report.summary.exit_code, gate, scenarios };
  }

  if (req.shard) throw new InputError('--shard: the real-model layer cannot be sharded yet; shard by --target or --scenario instead');
  if (req.agent === undefined) throw new InputError(`--agent: required for the real-model layer; one of ${AGENT_NAMES.join(', ')}`);
  const driver = getDriver(req.agent);
  const withPrompts = scenarios.filter((s) => s.scenario.real_model);
  if (!withPrompts.length) throw new InputError('--agent-turn: none of the selected scenarios has a real_model block (see `memeval list`)');
  if (!gate.scripted && !req.model) throw new InputError('--model: required for a real model (or use --model scripted)');
  if (req.install) {
    await installTargets(names.map((n) => loadTarget(n).decl), log);
    await installAgents([driver], log);
  }
  const targets = resolveTargets(names);
  checkAgainstTargets(withPrompts, targets);
  const bin = resolveAgentBin(driver);
  if (!bin) throw new InputError(`--agent: ${driver.name} (${driver.npm}@${driver.version}) is not installed; run \`memeval agents install ${driver.name}\` (or add --install)`);
  const policy = req.policy ?? 'well-behaved';
  const repeat = req.repeat ?? 1;
  req.onPlan?.(withPrompts.length * targets.length * repeat);
  log(
    `memeval: real-model layer, ${driver.name} ${bin.version} with ${gate.scripted ? `memeval's scripted model (policy ${policy})` : `model ${req.model}`}, ` +
      `${withPrompts.length} scenario(s) × ${targets.map((t) => t.decl.name).join(', ')} × ${repeat}, ${common.workers} worker(s)`,
  );
  const r = await withJudge(() => runRealModel({
    ...common,
    options: { judge_model: judge, scenarios_dir: req.scenariosDir ?? BUILTIN_SCENARIOS },
    gate,
    scenarios: withPrompts,
    targets,
    driver,
    agentBin: bin.file,
    agentVersion: bin.version,
    model: req.model ?? SCRIPTED_MODEL,
    baseUrl: req.baseUrl,
    policy,
    repeat,
    maxTurns: req.maxTurns,
    promptTimeoutMs: req.promptTimeoutMs ?? 300000,
    mcpTimeoutMs: req.mcpTimeoutMs ?? DEFAULT_MCP_TIMEOUT_MS,
  }));
  return { report: r.report, reportPath: r.reportPath, exitCode: r.report.summary.exit_code, gate, scenarios };
}
