import { dirname, join } from 'node:path';
import type { JudgePool } from '../judge/llm/pool.js';
import { judgeRunSummary, type JudgeRunSummary } from '../judge/llm/summary.js';
import type { CellResult, Report, TokenUsage, UsageTotal } from '../core/results.js';
import { assertAllowed } from '../agent/cost-gate.js';
import { addUsage, ZERO_USAGE } from '../agent/types.js';
import { agentDriver, type AgentDriveOptions } from '../drive/agent.js';
import { replayDriver } from '../drive/replay.js';
import type { Driver } from '../drive/types.js';
import { repeatStats, type RepeatStats } from '../report/repeats.js';
import { newRunId } from '../report/report.js';
import { writeRunReport } from '../report/run-report.js';
import { runCell } from '../run/cell.js';
import { planCells, runPlan, targetInfo, type RunTarget } from '../run/plan.js';
import { plannedCellId } from '../run/shard.js';
import type { LoadedScenario } from '../scenario/loader.js';
import { mapPool } from '../util/pool.js';
import { RunWriteError } from '../util/errors.js';
import { PartialRun } from './partial.js';

/** Writing the report is the last step; a disk that fails it makes the run an error that names the run dir. */
function writeReport<T>(runDir: string, write: () => T): T {
  try {
    return write();
  } catch (e) {
    throw new RunWriteError(runDir, e);
  }
}

export interface CommonRunOptions {
  scenarios: LoadedScenario[];
  targets: RunTarget[];
  workers: number;
  keep: boolean;
  outDir: string;
  runId?: string;
  signal?: AbortSignal;
  onResult?: (r: CellResult) => void;
  options?: Record<string, unknown>;
  /** the judge models for `llm` assertions; absent or without a default: none configured, they abstain */
  judgePool?: JudgePool;
  /** run only these planned cell ids (one shard); the rest is left to other machines */
  onlyCells?: Set<string>;
  /** which shard onlyCells is, recorded in the report's plan */
  shard?: { index: number; count: number };
  /** extra top-level report fields (a shard's index and count) */
  extra?: Record<string, unknown>;
}

export interface RunResult<X = object> {
  report: Report & X;
  reportPath: string;
  runDir: string;
}

/** The deterministic layer: every scenario × target × phase through the replay driver. */
export async function runDeterministic(o: CommonRunOptions): Promise<RunResult<{ judges: JudgeRunSummary }>> {
  const runId = o.runId ?? newRunId();
  const runDir = join(o.outDir, runId);
  const startedAt = new Date().toISOString();
  const all = planCells(o.scenarios, o.targets);
  const cells = all.filter((c) => !o.onlyCells || o.onlyCells.has(plannedCellId(c)));
  const plan = runPlan(all.map(plannedCellId), o.scenarios, o.targets, o.shard ?? null);
  const cellDir = (c: (typeof cells)[number]) => join(runDir, 'cells', c.s.scenario.id, c.t.decl.name, c.phase);
  const outcome = (results: CellResult[], interrupted: boolean) => ({
    runId,
    runDir,
    layer: 'deterministic' as const,
    startedAt,
    plan,
    options: { workers: o.workers, keep: o.keep, ...o.options },
    scenarios: o.scenarios.map((s) => s.scenario.id),
    targets: o.targets.map(targetInfo),
    results,
    interrupted,
  });
  const partial = new PartialRun(
    cells.map((c) => ({ cell_id: plannedCellId(c), scenario: c.s.scenario.id, target: c.t.decl.name, phase: c.phase, driver: 'replay', cell_dir: cellDir(c) })),
    (results) => writeRunReport(outcome(results, true), o.extra ?? {}),
  );
  const results = await runPlanned(cells, o, partial, (c) => ({ s: c.s, t: c.t, driver: replayDriver(c.s.scenario, c.phase), cellDir: cellDir(c) }));
  const judges = judgeRunSummary(results, o.judgePool?.defaultModel?.config ?? null);
  const { report, reportPath } = writeReport(runDir, () =>
    writeRunReport({ ...outcome(results, Boolean(o.signal?.aborted)), warnings: judges.warnings }, { ...(o.extra ?? {}), judges: judges.summary }),
  );
  return { report, reportPath, runDir };
}

/** Run planned cells in the pool; each is reported as it ends and kept for a second Ctrl-C's report. */
async function runPlanned<C>(
  cells: C[],
  o: CommonRunOptions,
  partial: PartialRun,
  plan: (c: C) => { s: LoadedScenario; t: RunTarget; driver: Driver; cellDir: string },
): Promise<CellResult[]> {
  return mapPool(cells, o.workers, async (c) => {
    const { s, t, driver, cellDir } = plan(c);
    const r = await runCell({
      scenario: s.scenario,
      decl: t.decl,
      bin: t.bin,
      driver,
      cellDir,
      keep: o.keep,
      signal: o.signal,
      serverEnv: t.serverEnv,
      judgePool: o.judgePool,
      scenarioDir: dirname(s.file),
    });
    partial.add(r);
    o.onResult?.(r);
    return r;
  }).finally(() => partial.close());
}

/** The agent settings of every cell, plus how many times each cell runs. */
export interface AgentRunOptions extends CommonRunOptions, Omit<AgentDriveOptions, 'scenario'> {}

/** The real-model layer: every scenario with a real_model block × target × repeat through an agent. */
export async function runRealModel(o: AgentRunOptions): Promise<RunResult<{ repeats: RepeatStats[]; judges: JudgeRunSummary; usage_total: UsageTotal }>> {
  assertAllowed(o.gate);
  const runId = o.runId ?? newRunId();
  const runDir = join(o.outDir, runId);
  const startedAt = new Date().toISOString();
  const cells = o.scenarios
    .filter((s) => s.scenario.real_model)
    .flatMap((s) => o.targets.flatMap((t) => Array.from({ length: o.repeat }, (_, i) => ({ s, t, repeat: i + 1 }))))
    .filter((c) => !o.onlyCells || o.onlyCells.has(agentCellId(c.s.scenario.id, c.t.decl.name, o.driver.name, c.repeat)));
  const label = (repeat: number) => `${o.driver.name}-${repeat}`;
  const cellId = (c: (typeof cells)[number]) => agentCellId(c.s.scenario.id, c.t.decl.name, o.driver.name, c.repeat);
  const plan = runPlan(cells.map(cellId), [...new Set(cells.map((c) => c.s))], o.targets, null);
  const cellDir = (c: (typeof cells)[number]) => join(runDir, 'cells', c.s.scenario.id, c.t.decl.name, label(c.repeat));
  const scripted = o.gate.scripted;
  const outcome = (results: CellResult[], interrupted: boolean, warnings: string[] = []) => ({
    runId,
    runDir,
    layer: 'real-model' as const,
    startedAt,
    plan,
    options: {
      workers: o.workers,
      keep: o.keep,
      agent: o.driver.name,
      agent_version: o.agentVersion,
      model: scripted ? 'scripted' : o.model,
      scripted_model: scripted,
      policy: o.policy,
      repeat: o.repeat,
      ...o.options,
    },
    scenarios: [...new Set(cells.map((c) => c.s.scenario.id))],
    targets: o.targets.map(targetInfo),
    results,
    interrupted,
    warnings,
  });
  // a second Ctrl-C quits at once: what finished is still reported, the rest as skipped
  const partial = new PartialRun(
    cells.map((c) => ({
      cell_id: cellId(c),
      scenario: c.s.scenario.id,
      target: c.t.decl.name,
      phase: 'real-model',
      driver: 'agent',
      cell_dir: cellDir(c),
    })),
    (results) => writeRunReport(outcome(results, true), { repeats: repeatStats(results), usage_total: usageTotal(results, scripted) }),
  );
  const results = await runPlanned(cells, o, partial, (c) => ({
    s: c.s,
    t: c.t,
    driver: agentDriver({ ...o, scenario: c.s.scenario, repeat: c.repeat }),
    cellDir: cellDir(c),
  }));
  const judges = judgeRunSummary(results, o.judgePool?.defaultModel?.config ?? null);
  const { report, reportPath } = writeReport(runDir, () =>
    writeRunReport(outcome(results, Boolean(o.signal?.aborted), judges.warnings), {
      repeats: repeatStats(results),
      judges: judges.summary,
      usage_total: usageTotal(results, scripted),
    }),
  );
  return { report, reportPath, runDir };
}

/** A real-model cell's id (its `onlyCells` key): scenario/target/real-model/agent-repeat. */
export function agentCellId(scenario: string, target: string, agent: string, repeat: number): string {
  return `${scenario}/${target}/real-model/${agent}-${repeat}`;
}

/**
 * Tokens (and cost, where the agents reported one) over every agent cell of the run. With the
 * scripted model the counts are the stand-in's rough estimates, not a model's: marked so.
 */
export function usageTotal(results: CellResult[], scripted: boolean): UsageTotal {
  let u: TokenUsage = { ...ZERO_USAGE };
  for (const r of results) if (r.agent) u = addUsage(u, r.agent.usage);
  return { ...u, estimated: scripted, cells: results.filter((r) => r.agent).length };
}
