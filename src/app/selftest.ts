import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CellResult, ScriptedPolicy } from '../core/results.js';
import { costGate, SCRIPTED_MODEL } from '../agent/cost-gate.js';
import { getAgent, installAgents, resolveAgentBin } from '../agent/registry.js';
import type { AgentAdapter } from '../agent/types.js';
import { AGENT_DEFAULTS } from '../core/config.js';
import { resolveJudgeConfig, type JudgeModelConfig } from '../judge/llm/config.js';
import { openJudgeModel } from '../judge/llm/client.js';
import { JudgePool } from '../judge/llm/pool.js';
import type { CellSpec, RunTarget } from '../cell/plan.js';
import type { LoadedScenario } from '../scenario/loader.js';
import { hostileTargetNames } from '../targets/files.js';
import { agentLayerScenario } from '../selftest/agent-layer.js';
import { narrowedParts, SelftestFindings, type PlannedCell, type SelftestReport } from '../selftest/findings.js';
import { applyMutations } from '../selftest/mutations.js';
import type { FalsePass, SelftestScenario } from '../selftest/proof.js';
import { judgedAsOf, mayBeFalse, type JudgedAs, type SelftestLayer } from '../selftest/rules.js';
import { selectScenarios } from '../scenario/select.js';
import { InputError, messageOf } from '../util/errors.js';
import { BUILTIN_SCENARIOS, HOSTILE_DIR, REFERENCE_TARGET } from '../util/paths.js';
import { checkAgainstTargets, loadScenarioDir, resolveTargets } from './load.js';
import { runDeterministic, runRealModel, type CommonRunOptions } from './run.js';

/**
 * `memeval selftest`: proves each scenario in both directions. Against the hostile targets
 * (eval/hostile/: one small server, bent one way per declaration) no verdict may be false and
 * each hostility the scenario is exposed to must be met; against the reference target (a
 * correct server, eval/reference/) the well-behaved phase must pass and the violation be
 * detected or defended; and broken inputs of memeval's own (src/selftest/mutations.ts) applied
 * to the scenario's assertions must never decide. The rules are data (src/selftest/rules.ts),
 * the conclusions src/selftest/proof.ts.
 */

export type { SelftestLayer, SelftestScenario, FalsePass, SelftestReport };
export type { SelftestCoverage } from '../selftest/findings.js';
export { HOSTILE_RULES } from '../selftest/rules.js';

/** The built-in scenarios: the top folder and its recall-quality folder. */
export const BUILTIN_SCENARIO_DIRS = [BUILTIN_SCENARIOS, join(BUILTIN_SCENARIOS, 'recall')];

export interface SelftestRequest {
  /** one folder of scenarios (default: the built-in ones, scenarios/ and scenarios/recall/) */
  scenariosDir?: string;
  /** only these scenario ids or globs */
  scenarioIds?: string[];
  /** which layers to run (default: deterministic only) */
  layers?: SelftestLayer[];
  /** the agent for the agent layer (with memeval's scripted model) */
  agent?: string;
  /** install the agent when missing */
  install?: boolean;
  /** hostile target names (default: all of eval/hostile/) */
  targets?: string[];
  workers?: number;
  /** where run directories go (default: a temp dir removed afterwards) */
  outDir?: string;
  keep?: boolean;
  /** the judge for llm assertions (default: scripted); only free, loopback judges */
  judgeModel?: string;
  judgeBaseUrl?: string;
  judgeProtocol?: string;
  promptTimeoutMs?: number;
  /** run the scenarios on the reference target (a correct server) too (default: true) */
  reference?: boolean;
  /** apply memeval's input mutations to the scenarios' assertions (default: true) */
  mutations?: boolean;
  signal?: AbortSignal;
  onResult?: (r: CellResult) => void;
  log?: (line: string) => void;
}

function loadScenarios(dir: string | undefined): LoadedScenario[] {
  const all = (dir ? [dir] : BUILTIN_SCENARIO_DIRS).flatMap((d) => loadScenarioDir(d));
  const seen = new Map<string, string>();
  for (const s of all) {
    const prev = seen.get(s.scenario.id);
    if (prev) throw new InputError(`${s.file}: scenario id "${s.scenario.id}" is also the id of ${prev}`);
    seen.set(s.scenario.id, s.file);
  }
  return all;
}

function hostileTargets(names: string[] | undefined): RunTarget[] {
  const known = hostileTargetNames();
  const chosen = names?.length ? names : known;
  const unknown = chosen.filter((n) => !known.includes(n));
  if (unknown.length)
    throw new InputError(`--target: unknown hostile target(s) ${unknown.join(', ')}; known: ${known.join(', ')}`);
  return resolveTargets(chosen.map((n) => join(HOSTILE_DIR, `${n}.json5`)));
}

function judgeConfig(req: SelftestRequest): JudgeModelConfig | null {
  let judge: JudgeModelConfig | null;
  try {
    judge = resolveJudgeConfig(
      {
        judgeModel: req.judgeModel ?? (req.judgeBaseUrl ? undefined : 'scripted'),
        judgeBaseUrl: req.judgeBaseUrl,
        judgeProtocol: req.judgeProtocol,
      },
      {},
    );
  } catch (e) {
    throw new InputError(`--judge-protocol: ${messageOf(e)}`);
  }
  if (req.judgeBaseUrl && !req.judgeModel)
    throw new InputError('--judge-base-url: give --judge-model too (the model id the endpoint serves)');
  if (judge && !judge.scripted && !judge.loopback)
    throw new InputError(
      `--judge-base-url: selftest uses only free judges: "scripted" or one on this machine (loopback), not ${judge.base_url ?? judge.model}`,
    );
  return judge;
}

/** What a selftest runs on, every part checked before anything runs. */
interface SelftestInputs {
  layers: SelftestLayer[];
  scenarios: LoadedScenario[];
  /** the hostile targets */
  targets: RunTarget[];
  /** the reference target, or none (--no-reference) */
  reference: RunTarget[];
  judge: JudgeModelConfig | null;
  /** the agent of the agent layer, installed */
  agent?: { adapter: AgentAdapter; bin: { file: string; version: string } };
}

/** The request's scenarios, targets, judge and agent; bad input is an InputError here. */
async function selftestInputs(req: SelftestRequest, log: (line: string) => void): Promise<SelftestInputs> {
  const layers = req.layers?.length ? req.layers : (['deterministic'] as SelftestLayer[]);
  const scenarios = selectScenarios(loadScenarios(req.scenariosDir), { ids: req.scenarioIds });
  const targets = hostileTargets(req.targets);
  const reference = req.reference === false ? [] : resolveTargets([REFERENCE_TARGET]);
  checkAgainstTargets(scenarios, [...targets, ...reference]);
  const judge = judgeConfig(req);
  if (!layers.includes('agent')) return { layers, scenarios, targets, reference, judge };
  if (!req.agent) throw new InputError('--agent: required for the agent layer (--layer agent)');
  const adapter = getAgent(req.agent);
  if (req.install) await installAgents([adapter], log);
  const bin = resolveAgentBin(adapter);
  if (!bin)
    throw new InputError(
      `--agent: ${adapter.name} (${adapter.npm}@${adapter.version}) is not installed; run \`memeval agents install ${adapter.name}\` (or add --install)`,
    );
  return { layers, scenarios, targets, reference, judge, agent: { adapter, bin } };
}

/** A planned cell as selftest names it, judged as its phase unless the layer's policy says. */
const plannedCell =
  (layer: SelftestLayer, judgedAs?: JudgedAs) =>
  (p: CellSpec): PlannedCell => ({
    scenario: p.scenario.scenario.id,
    target: p.target.decl.name,
    layer,
    phase: judgedAs ?? judgedAsOf(p.phase),
  });

/** What every run of one selftest shares. */
type SelftestRun = Pick<CommonRunOptions, 'workers' | 'keep' | 'outDir' | 'signal' | 'judgePool' | 'onResult'> & {
  inputs: SelftestInputs;
  findings: SelftestFindings;
  runDirs: string[];
  log: (line: string) => void;
};

/** The deterministic layer over the hostile targets: the cells some rule could make false. */
async function hostileDeterministic({ inputs, findings, runDirs, log, ...common }: SelftestRun): Promise<void> {
  const { scenarios, targets, judge } = inputs;
  const r = await runDeterministic({
    ...common,
    targets,
    scenarios,
    only: (c) => mayBeFalse(c.scenario.scenario, c.target.decl.name, 'deterministic', c.phase as JudgedAs),
    onPlan: (planned) => {
      findings.planned('deterministic', planned.map(plannedCell('deterministic')));
      log(
        `memeval selftest: ${scenarios.length} scenario(s) × ${targets.length} hostile target(s), deterministic layer: ${planned.length} cell(s) that could pass falsely, ${common.workers} worker(s)`,
      );
    },
    options: { selftest: true, judge_model: judge },
  });
  runDirs.push(r.runDir);
  for (const c of r.report.results) findings.hostileCell('deterministic', judgedAsOf(c.phase), c);
}

/** The agent layer over the hostile targets, a run per scripted policy, through a real agent. */
async function hostileAgent(
  { inputs, findings, runDirs, log, ...common }: SelftestRun,
  agent: NonNullable<SelftestInputs['agent']>,
  promptTimeoutMs: number,
): Promise<void> {
  const { scenarios, targets, judge } = inputs;
  for (const policy of ['well-behaved', 'violation'] as ScriptedPolicy[]) {
    if (common.signal?.aborted) break;
    const judgedAs: JudgedAs = policy === 'violation' ? 'violation' : 'well-behaved';
    // a scenario without a violation has no violation cell in this layer either
    const played = scenarios
      .filter((s) => judgedAs === 'well-behaved' || s.scenario.deterministic.violation)
      .map((s) => agentLayerScenario(s, policy));
    const only = (c: CellSpec) => mayBeFalse(c.scenario.scenario, c.target.decl.name, 'agent', judgedAs);
    if (!played.some((s) => targets.some((t) => mayBeFalse(s.scenario, t.decl.name, 'agent', judgedAs)))) continue;
    const r = await runRealModel({
      ...common,
      targets,
      only,
      onPlan: (planned) => {
        findings.planned('agent', planned.map(plannedCell('agent', judgedAs)));
        log(
          `memeval selftest: agent layer (${agent.adapter.name}, scripted model, policy ${policy}): ${planned.length} cell(s), ${common.workers} worker(s)`,
        );
      },
      scenarios: played,
      options: { selftest: true, judge_model: judge },
      gate: costGate({ agentTurn: true, model: SCRIPTED_MODEL }),
      adapter: agent.adapter,
      agentBin: agent.bin.file,
      agentVersion: agent.bin.version,
      model: SCRIPTED_MODEL,
      policy,
      repeat: 1,
      promptTimeoutMs,
      mcpTimeoutMs: AGENT_DEFAULTS.mcpTimeoutMs,
    });
    runDirs.push(r.runDir);
    for (const c of r.report.results) findings.hostileCell('agent', judgedAs, c);
  }
}

/** The other direction: the reference target (a correct server), every cell of every scenario. */
async function referenceRun({ inputs, findings, runDirs, log, ...common }: SelftestRun): Promise<void> {
  const r = await runDeterministic({
    ...common,
    targets: inputs.reference,
    scenarios: inputs.scenarios,
    onPlan: (planned) => log(`memeval selftest: the reference target (a correct server): ${planned.length} cell(s)`),
    options: { selftest: true, judge_model: inputs.judge },
  });
  runDirs.push(r.runDir);
  findings.referenceCells(r.report.results);
}

/**
 * Run every scenario against every hostile target in the chosen layers, against the reference
 * target, and under broken inputs, and say of each scenario whether it is proven. Bad input
 * (scenarios, targets, flags) is an InputError before anything runs.
 */
export async function selftest(req: SelftestRequest = {}): Promise<SelftestReport> {
  const t0 = performance.now();
  const log = req.log ?? (() => {});
  const inputs = await selftestInputs(req, log);
  const ownOut = req.outDir === undefined;
  const outDir = req.outDir ?? mkdtempSync(join(tmpdir(), 'memeval-selftest-'));
  const judgeModel = inputs.judge ? await openJudgeModel(inputs.judge) : null;
  const findings = new SelftestFindings(
    inputs.scenarios,
    inputs.targets.map((t) => t.decl.name),
    inputs.layers,
  );
  const pool = new JudgePool(judgeModel);
  const run: SelftestRun = {
    inputs,
    findings,
    runDirs: [],
    log,
    workers: req.workers ?? 2,
    keep: Boolean(req.keep),
    outDir,
    signal: req.signal,
    judgePool: pool,
    onResult: req.onResult,
  };
  try {
    if (inputs.layers.includes('deterministic')) await hostileDeterministic(run);
    if (inputs.agent) await hostileAgent(run, inputs.agent, req.promptTimeoutMs ?? AGENT_DEFAULTS.promptTimeoutMs);
    if (inputs.reference.length && !req.signal?.aborted) await referenceRun(run);
    if (req.mutations !== false && !req.signal?.aborted) {
      const m = await applyMutations(inputs.scenarios, judgeModel, req.signal);
      findings.mutationsApplied(m.applied, m.decided);
      log(`memeval selftest: ${m.applied} broken input(s) applied to the scenarios' assertions`);
    }
  } finally {
    await pool.close(); // closes judgeModel too
    if (ownOut && !req.keep) rmSync(outDir, { recursive: true, force: true });
  }
  const runDirsGone = ownOut && !req.keep;
  return findings.report({
    narrowed: narrowedParts({
      hostileTargets: inputs.targets.length,
      reference: inputs.reference.length > 0,
      mutations: req.mutations !== false,
    }),
    // a temp run dir is gone: its cell dirs would point at nothing
    cellDirsGone: runDirsGone,
    runDirs: runDirsGone ? [] : run.runDirs,
    durationMs: Math.round(performance.now() - t0),
  });
}
