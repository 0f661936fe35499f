import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CellResult, ScriptedPolicy, Verdict } from '../core/results.js';
import { costGate, SCRIPTED_MODEL } from '../agent/cost-gate.js';
import { getAgent, installAgents, resolveAgentBin } from '../agent/registry.js';
import { AGENT_DEFAULTS } from '../core/config.js';
import { resolveJudgeConfig, type JudgeModelConfig } from '../judge/llm/config.js';
import { openJudgeModel } from '../judge/llm/client.js';
import { JudgePool } from '../judge/llm/pool.js';
import type { RunTarget } from '../cell/plan.js';
import type { LoadedScenario } from '../scenario/loader.js';
import { flatSteps } from '../scenario/schema.js';
import { withMembers } from '../scenario/kinds.js';
import { hostileTargetNames } from '../targets/files.js';
import { judgeTimeoutMs } from '../judge/bounded.js';
import { mutate } from '../selftest/mutations.js';
import {
  proofStatus,
  readHostileCell,
  readReferenceCell,
  type FalsePass,
  type MutationMiss,
  type ProofCell,
  type ReferenceMiss,
  type SelftestScenario,
  type Unproven,
} from '../selftest/proof.js';
import { mayBeFalse, type JudgedAs, type SelftestLayer } from '../selftest/rules.js';
import { selectScenarios } from '../scenario/select.js';
import { InputError } from '../util/errors.js';
import { BUILTIN_SCENARIOS, HOSTILE_DIR, REFERENCE_TARGET } from '../util/paths.js';
import { checkAgainstTargets, loadScenarioDir, resolveTargets } from './load.js';
import { runDeterministic, runRealModel } from './run.js';
import type { CellSpec } from '../cell/plan.js';
import { splitSessions } from '../model/policy.js';

/**
 * `memeval selftest`: proves each scenario in both directions. Against the hostile targets
 * (eval/hostile/: one small server, bent one way per declaration) no verdict may be false and
 * each hostility the scenario is exposed to must be met; against the reference target (a
 * correct server, eval/reference/) the well-behaved phase must pass and the violation be
 * detected or defended; and broken inputs of memeval's own (src/selftest/mutations.ts) applied
 * to the scenario's assertions must never decide. The rules are data (src/selftest/rules.ts),
 * the conclusions src/selftest/proof.ts.
 */

export type { SelftestLayer, SelftestScenario, FalsePass };
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

/**
 * One layer's share of the cross product: every scenario × hostile target × phase the scenario
 * has. A cell runs when some rule could make its verdict false; the rest cannot be false.
 */
export interface SelftestCoverage {
  layer: SelftestLayer;
  cross_product: number;
  /** the cells some rule could make false: the ones the layer runs */
  planned: number;
  /** the cells that ended with a verdict (fewer than planned only when interrupted) */
  ran: number;
  cannot_be_false: number;
}

export interface SelftestReport {
  scenarios: SelftestScenario[];
  targets: string[];
  layers: SelftestLayer[];
  cells: number;
  coverage: SelftestCoverage[];
  /** cells by verdict, over every layer */
  by_verdict: Partial<Record<Verdict, number>>;
  false_passes: FalsePass[];
  /** scenarios with a false verdict (a hostile target's, or a broken input's decision) */
  toothless: string[];
  /** scenarios a correct server does not pass */
  fails_correct_server: string[];
  /** scenarios some cell that could expose them tested nothing */
  not_proven: string[];
  proven: string[];
  /** the parts of the proof this selftest left out (then no scenario is proven) */
  narrowed?: string[];
  /** the reference target's cells (absent when it was not run) */
  reference?: { cells: number; by_verdict: Partial<Record<Verdict, number>> };
  /** broken inputs applied to the scenarios' assertions (absent when not applied) */
  mutations?: { applied: number; false: number };
  run_dirs: string[];
  duration_ms: number;
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

/**
 * The scenario as the agent layer plays it under a policy. The scripted model replays the
 * policy's steps whatever a prompt says, so a scenario without prompts of its own (no
 * real_model block) still meets every hostile target through a real agent: one neutral prompt
 * per restart-separated part, as many tool calls allowed per prompt as the part makes.
 */
export function agentLayerScenario(s: LoadedScenario, policy: ScriptedPolicy): LoadedScenario {
  if (s.scenario.real_model) return s;
  const steps =
    policy === 'violation' ? (s.scenario.deterministic.violation?.steps ?? []) : s.scenario.deterministic.well_behaved;
  const parts = splitSessions(steps);
  // a hostile target's ops are one call each; a scenario's own tool steps too
  const maxTurns = Math.max(8, ...parts.map((p) => flatSteps(p).length));
  const sessions = parts.map((_, i) => ({
    prompts: [`Session ${i + 1} of ${parts.length}: use the memory tools as this task needs.`],
  }));
  return { ...s, scenario: { ...s.scenario, real_model: { sessions, max_turns: maxTurns } } };
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
    throw new InputError(`--judge-protocol: ${(e as Error).message}`);
  }
  if (req.judgeBaseUrl && !req.judgeModel)
    throw new InputError('--judge-base-url: give --judge-model too (the model id the endpoint serves)');
  if (judge && !judge.scripted && !judge.loopback)
    throw new InputError(
      `--judge-base-url: selftest uses only free judges: "scripted" or one on this machine (loopback), not ${judge.base_url ?? judge.model}`,
    );
  return judge;
}

/**
 * Run every scenario against every hostile target in the chosen layers, against the reference
 * target, and under broken inputs, and say of each scenario whether it is proven. Bad input
 * (scenarios, targets, flags) is an InputError before anything runs.
 */
export async function selftest(req: SelftestRequest = {}): Promise<SelftestReport> {
  const t0 = performance.now();
  const log = req.log ?? (() => {});
  const layers = req.layers?.length ? req.layers : (['deterministic'] as SelftestLayer[]);
  const scenarios = selectScenarios(loadScenarios(req.scenariosDir), { ids: req.scenarioIds });
  const targets = hostileTargets(req.targets);
  const reference = req.reference === false ? [] : resolveTargets([REFERENCE_TARGET]);
  checkAgainstTargets(scenarios, [...targets, ...reference]);
  const judge = judgeConfig(req);
  let agentSetup: { driver: ReturnType<typeof getAgent>; bin: { file: string; version: string } } | undefined;
  if (layers.includes('agent')) {
    if (!req.agent) throw new InputError('--agent: required for the agent layer (--layer agent)');
    const driver = getAgent(req.agent);
    if (req.install) await installAgents([driver], log);
    const bin = resolveAgentBin(driver);
    if (!bin)
      throw new InputError(
        `--agent: ${driver.name} (${driver.npm}@${driver.version}) is not installed; run \`memeval agents install ${driver.name}\` (or add --install)`,
      );
    agentSetup = { driver, bin };
  }
  const ownOut = req.outDir === undefined;
  const outDir = req.outDir ?? mkdtempSync(join(tmpdir(), 'memeval-selftest-'));
  const judgeModel = judge ? await openJudgeModel(judge) : null;
  const pool = new JudgePool(judgeModel);
  const workers = req.workers ?? 2;
  const byId = new Map(scenarios.map((s) => [s.scenario.id, s]));
  const found = new Map(
    scenarios.map((s) => [
      s.scenario.id,
      {
        false_passes: [] as FalsePass[],
        mutation_misses: [] as MutationMiss[],
        reference_misses: [] as ReferenceMiss[],
        unproven: [] as Unproven[],
      },
    ]),
  );
  const byVerdict: Partial<Record<Verdict, number>> = {};
  const runDirs: string[] = [];
  let cells = 0;
  // hostile cells some rule applies to: each must end exposed (or false); one that never ran proves nothing
  const awaited = new Map<string, Omit<Unproven, 'verdict' | 'why'>>();
  const key = (c: { scenario: string; target: string; layer: string; phase: string }) =>
    `${c.scenario}\u0000${c.target}\u0000${c.layer}\u0000${c.phase}`;
  const crossProduct = targets.length * scenarios.reduce((n, s) => n + (s.scenario.deterministic.violation ? 2 : 1), 0);
  const coverage = layers.map((layer): SelftestCoverage => ({
    layer,
    cross_product: crossProduct,
    planned: 0,
    ran: 0,
    cannot_be_false: crossProduct,
  }));
  const plannedIn = (layer: SelftestLayer, planned: CellSpec[], judgedAs?: JudgedAs) => {
    const c = coverage.find((x) => x.layer === layer)!;
    c.planned += planned.length;
    c.cannot_be_false -= planned.length;
    for (const p of planned) {
      const cell = {
        scenario: p.scenario.scenario.id,
        target: p.target.decl.name,
        layer,
        phase: judgedAs ?? (p.phase === 'violation' ? 'violation' : 'well-behaved'),
      } as const;
      awaited.set(key(cell), cell);
    }
  };
  const readCell = (layer: SelftestLayer, judgedAs: JudgedAs) => (r: CellResult) => {
    cells++;
    coverage.find((x) => x.layer === layer)!.ran++;
    byVerdict[r.verdict] = (byVerdict[r.verdict] ?? 0) + 1;
    const cell: ProofCell = {
      scenario: r.scenario,
      target: r.target,
      layer,
      phase: judgedAs,
      verdict: r.verdict,
      reason: r.reason,
      cell_dir: r.cell_dir,
    };
    awaited.delete(key(cell));
    const f = found.get(r.scenario)!;
    const read = readHostileCell(byId.get(r.scenario)!.scenario, cell);
    if ('false' in read) f.false_passes.push(read.false);
    else if ('unproven' in read) f.unproven.push(read.unproven);
  };
  const common = {
    workers,
    keep: Boolean(req.keep),
    outDir,
    signal: req.signal,
    judgePool: pool,
    onResult: req.onResult,
  };
  let referenceReport: SelftestReport['reference'];
  let mutationCount: SelftestReport['mutations'];
  try {
    if (layers.includes('deterministic')) {
      const only = (c: CellSpec) =>
        mayBeFalse(c.scenario.scenario, c.target.decl.name, 'deterministic', c.phase as JudgedAs);
      const r = await runDeterministic({
        ...common,
        targets,
        scenarios,
        only,
        onPlan: (planned) => {
          plannedIn('deterministic', planned);
          log(
            `memeval selftest: ${scenarios.length} scenario(s) × ${targets.length} hostile target(s), deterministic layer: ${planned.length} cell(s) that could pass falsely, ${workers} worker(s)`,
          );
        },
        options: { selftest: true, judge_model: judge },
      });
      runDirs.push(r.runDir);
      for (const c of r.report.results)
        readCell('deterministic', c.phase === 'violation' ? 'violation' : 'well-behaved')(c);
    }
    if (agentSetup) {
      for (const policy of ['well-behaved', 'violation'] as ScriptedPolicy[]) {
        if (req.signal?.aborted) break;
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
            plannedIn('agent', planned, judgedAs);
            log(
              `memeval selftest: agent layer (${agentSetup!.driver.name}, scripted model, policy ${policy}): ${planned.length} cell(s), ${workers} worker(s)`,
            );
          },
          scenarios: played,
          options: { selftest: true, judge_model: judge },
          gate: costGate({ agentTurn: true, model: SCRIPTED_MODEL }),
          driver: agentSetup.driver,
          agentBin: agentSetup.bin.file,
          agentVersion: agentSetup.bin.version,
          model: SCRIPTED_MODEL,
          policy,
          repeat: 1,
          promptTimeoutMs: req.promptTimeoutMs ?? AGENT_DEFAULTS.promptTimeoutMs,
          mcpTimeoutMs: AGENT_DEFAULTS.mcpTimeoutMs,
        });
        runDirs.push(r.runDir);
        for (const c of r.report.results) readCell('agent', judgedAs)(c);
      }
    }
    if (reference.length && !req.signal?.aborted) {
      // the other direction: a correct server, every cell of every scenario
      const r = await runDeterministic({
        ...common,
        targets: reference,
        scenarios,
        onPlan: (planned) =>
          log(`memeval selftest: the reference target (a correct server): ${planned.length} cell(s)`),
        options: { selftest: true, judge_model: judge },
      });
      runDirs.push(r.runDir);
      const refVerdicts: Partial<Record<Verdict, number>> = {};
      for (const c of r.report.results) {
        refVerdicts[c.verdict] = (refVerdicts[c.verdict] ?? 0) + 1;
        const read = readReferenceCell({
          scenario: c.scenario,
          target: c.target,
          layer: 'deterministic',
          phase: c.phase === 'violation' ? 'violation' : 'well-behaved',
          verdict: c.verdict,
          reason: c.reason,
          claimed: Boolean(c.claimed),
        });
        if (read && 'miss' in read) found.get(c.scenario)!.reference_misses.push(read.miss);
        else if (read) found.get(c.scenario)!.unproven.push(read.unproven);
      }
      referenceReport = { cells: r.report.results.length, by_verdict: refVerdicts };
    }
    if (req.mutations !== false && !req.signal?.aborted) {
      // memeval's own inputs broken under each assertion (and member) of each scenario
      const root = mkdtempSync(join(tmpdir(), 'memeval-mutations-'));
      try {
        let applied = 0;
        for (const s of scenarios) {
          for (const [i, a] of withMembers(s.scenario.assertions).entries()) {
            if (req.signal?.aborted) break;
            for (const m of await mutate(a, join(root, `${s.scenario.id}-${i}`), judgeModel, judgeTimeoutMs())) {
              applied++;
              if (m.false) found.get(s.scenario.id)!.mutation_misses.push({ ...m, scenario: s.scenario.id });
            }
          }
        }
        mutationCount = {
          applied,
          false: [...found.values()].reduce((n, f) => n + f.mutation_misses.length, 0),
        };
        log(`memeval selftest: ${applied} broken input(s) applied to the scenarios' assertions`);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    }
  } finally {
    await pool.close(); // closes judgeModel too
    if (ownOut && !req.keep) rmSync(outDir, { recursive: true, force: true });
  }
  for (const cell of awaited.values())
    found.get(cell.scenario)!.unproven.push({ ...cell, verdict: 'not run', why: 'the cell did not run (interrupted)' });
  const falsePasses = [...found.values()].flatMap((f) => f.false_passes);
  // a temp run dir is gone: its cell dirs would point at nothing
  if (ownOut && !req.keep) for (const f of falsePasses) delete (f as Partial<FalsePass>).cell_dir;
  // proven is a claim over the whole matrix: a part left out leaves every scenario not proven
  const allHostile = hostileTargetNames();
  const narrowed = [
    ...(targets.length < allHostile.length
      ? [`only ${targets.length} of ${allHostile.length} hostile targets (--target)`]
      : []),
    ...(reference.length ? [] : ['without the reference target (--no-reference)']),
    ...(req.mutations === false ? ["without memeval's broken inputs (--no-mutations)"] : []),
  ];
  const out: SelftestScenario[] = scenarios.map((s) => {
    const f = found.get(s.scenario.id)!;
    if (narrowed.length)
      f.unproven.push({
        scenario: s.scenario.id,
        target: 'selftest',
        layer: layers[0],
        phase: 'well-behaved',
        verdict: 'not run',
        why: `selftest ran ${narrowed.join(', ')}: a scenario is proven only over all of them`,
      });
    const exposedTo = coverageOf(s.scenario.id);
    if (!exposedTo)
      f.unproven.push({
        scenario: s.scenario.id,
        target: targets.map((t) => t.decl.name).join(', '),
        layer: layers[0],
        phase: 'well-behaved',
        verdict: 'not run',
        why: 'no hostile target here could expose it (no rule of theirs applies)',
      });
    const status = proofStatus(f);
    return { id: s.scenario.id, file: s.file, status, toothless: status === 'toothless', ...f };
  });
  function coverageOf(id: string): boolean {
    const s = byId.get(id)!.scenario;
    return layers.some((layer) =>
      targets.some(
        (t) =>
          mayBeFalse(s, t.decl.name, layer, 'well-behaved') ||
          (s.deterministic.violation !== null && mayBeFalse(s, t.decl.name, layer, 'violation')),
      ),
    );
  }
  const named = (st: SelftestScenario['status']) => out.filter((x) => x.status === st).map((x) => x.id);
  return {
    scenarios: out,
    targets: targets.map((t) => t.decl.name),
    layers,
    cells,
    coverage,
    by_verdict: byVerdict,
    false_passes: falsePasses,
    toothless: named('toothless'),
    fails_correct_server: named('fails-correct-server'),
    not_proven: named('not-proven'),
    proven: named('proven'),
    ...(narrowed.length ? { narrowed } : {}),
    ...(referenceReport ? { reference: referenceReport } : {}),
    ...(mutationCount ? { mutations: mutationCount } : {}),
    run_dirs: ownOut && !req.keep ? [] : runDirs,
    duration_ms: Math.round(performance.now() - t0),
  };
}
