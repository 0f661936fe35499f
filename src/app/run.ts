import { dirname, join } from 'node:path';
import type { JudgePool } from '../judge/llm/pool.js';
import { judgeRunSummary, type JudgeRunSummary } from '../judge/llm/summary.js';
import type { RunConfig } from '../core/config.js';
import type { CellResult, DeterministicPhase, Report, ReportOptions, TokenUsage, UsageTotal } from '../core/results.js';
import { assertAllowed } from '../agent/cost-gate.js';
import { addUsage, ZERO_USAGE } from '../agent/types.js';
import { agentDriver, type AgentDriveOptions } from '../drive/agent.js';
import { replayDriver } from '../drive/replay.js';
import type { Driver } from '../drive/types.js';
import type { GateInput, GateResult } from '../report/gate.js';
import { repeatStats, type RepeatStats } from '../report/repeats.js';
import { markLive } from '../util/live-run.js';
import { newRunId } from '../report/report.js';
import { writeRunReport, type RunOutcome } from '../report/run-report.js';
import { openCellLog, type CellLog } from '../report/run-log.js';
import { runCell } from '../cell/cell.js';
import { runWithRetries } from '../cell/retries.js';
import { planRun, runPlan, targetInfo, type CellSpec, type RunTarget } from '../cell/plan.js';
import { shardCells, type Shard } from '../cell/shard.js';
import type { LoadedScenario } from '../scenario/loader.js';
import { mapPool } from '../util/pool.js';
import { InputError, RunWriteError } from '../util/errors.js';
import { PartialRun } from './partial.js';
import { NothingToRerun, planDifference, type LastFailed } from './last-failed.js';

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
  /** report options beside the layer's own (scenarios dir, judge model, shard) */
  options?: ReportOptions;
  /** the resolved run config, kept in the report */
  config?: RunConfig;
  /** the judge models for `llm` assertions; absent or without a default: none configured, they abstain */
  judgePool?: JudgePool;
  /** run only the planned cells this accepts (the selftest's); the plan still records them all */
  only?: (c: CellSpec) => boolean;
  /** run one deterministic slice of the planned cells; durations (by cell id) balance the slices */
  shard?: Shard & { durations?: Map<string, number> };
  /** called once the cells are planned, before any runs: those that will run, and all planned */
  onPlan?: (cells: CellSpec[], planned: CellSpec[]) => void;
  /** a baseline or expected failures: decides the exit code the report records */
  exitGate?: GateInput;
  /** reruns of a cell that fails the run (cell/retries.ts) */
  retries?: number;
  /**
   * --last-failed: the latest run, whose failing cells this run reruns; it must have planned the
   * cells this run plans (else InputError), and with none failing nothing runs (NothingToRerun)
   */
  lastFailed?: LastFailed;
  /** --intended-targets: every target (column) of the whole run this run is a part of, recorded in the plan for merge */
  intendedTargets?: string[];
}

export interface RunResult<X = object> {
  report: Report & X & { gate?: GateResult };
  reportPath: string;
  runDir: string;
}

/** A planned run, ready to execute: its cells, how each is driven, and what its report adds. */
export interface RunExecution<X extends object> extends CommonRunOptions {
  layer: Report['layer'];
  runId: string;
  runDir: string;
  /** every cell the run planned (all shards'): the report's plan */
  planned: CellSpec[];
  /** the driver of one cell */
  driverFor: (c: CellSpec) => Driver;
  /** the layer's own report fields, over the results so far */
  extra: (results: CellResult[]) => X;
}

/**
 * The one run pipeline: run the planned cells (those of this shard) in the pool, report each as
 * it ends, keep them for a second Ctrl-C's partial report, and write the report once at the end
 * with the judges' summary and the gate's exit code.
 */
export async function executeRun<X extends object>(
  o: RunExecution<X>,
): Promise<RunResult<X & { judges: JudgeRunSummary }>> {
  const startedAt = new Date().toISOString();
  const intended = o.intendedTargets && intendedTargets(o.intendedTargets, o.targets);
  const mine = o.shard
    ? new Set(
        shardCells(
          o.planned.map((c) => c.id),
          o.shard,
          o.shard.durations,
        ),
      )
    : undefined;
  const wanted = o.lastFailed && wantedCells(o.lastFailed, o.planned);
  const cells = o.planned.filter(
    (c) => (!mine || mine.has(c.id)) && (!o.only || o.only(c)) && (!wanted || wanted.has(c.id)),
  );
  o.onPlan?.(cells, o.planned);
  const scenarios = [...new Set(o.planned.map((c) => c.scenario))];
  const plan = {
    ...runPlan(
      o.planned.map((c) => c.id),
      scenarios,
      o.targets,
      o.shard ? { index: o.shard.index, count: o.shard.count } : null,
    ),
    ...(intended ? { intended_targets: intended } : {}),
  };
  const outcome = (results: CellResult[], interrupted: boolean, warnings: string[] = []): RunOutcome => ({
    runId: o.runId,
    runDir: o.runDir,
    layer: o.layer,
    startedAt,
    plan,
    options: { workers: o.workers, keep: o.keep, ...o.options },
    ...(o.config ? { config: o.config } : {}),
    scenarios: scenarios.map((s) => s.scenario.id),
    targets: o.targets.map(targetInfo),
    results,
    interrupted,
    warnings,
  });
  const unmark = markLive(o.runDir);
  // while it runs, `view` shows the cells finished so far from this log
  const cellLog = openCellLog(
    outcome([], false),
    cells.map((c) => ({
      cell_id: c.id,
      scenario: c.scenario.scenario.id,
      target: c.target.decl.name,
      phase: c.phase,
      ...(c.repeat !== undefined ? { repeat: c.repeat } : {}),
    })),
  );
  // a second Ctrl-C quits at once: what finished is still reported, the rest as skipped
  const partial = new PartialRun(cells, (results) => {
    writeRunReport(outcome(results, true), o.extra(results));
    cellLog.close();
  });
  try {
    const r = await runAndReport(o, cells, partial, cellLog, outcome);
    cellLog.close();
    return r;
  } finally {
    unmark();
  }
}

/** --intended-targets, sorted: it must hold every target this run runs, before anything runs. */
function intendedTargets(intended: string[], targets: RunTarget[]): string[] {
  const outside = targets.map((t) => t.decl.name).filter((n) => !intended.includes(n));
  if (outside.length)
    throw new InputError(
      `--intended-targets: this run's target(s) ${outside.join(', ')} are not among the intended targets [${intended.join(', ')}]; list every target of the whole run (the columns, e.g. ${outside[0]})`,
    );
  return [...new Set(intended)].sort();
}

/**
 * --last-failed: the ids to run. Only a latest run that planned exactly this run's cells can say
 * which of them failed, or that none did; before anything runs or is written.
 */
function wantedCells(last: LastFailed, planned: CellSpec[]): Set<string> {
  const differs = planDifference(
    last,
    planned.map((c) => c.id),
  );
  if (differs) throw new InputError(differs);
  if (!last.cellIds.length) throw new NothingToRerun(last.runId);
  return new Set(last.cellIds);
}

async function runAndReport<X extends object>(
  o: RunExecution<X>,
  cells: CellSpec[],
  partial: PartialRun,
  cellLog: CellLog,
  outcome: (results: CellResult[], interrupted: boolean, warnings?: string[]) => RunOutcome,
): Promise<RunResult<X & { judges: JudgeRunSummary }>> {
  const results = await mapPool(cells, o.workers, async (c) => {
    // each retry gets a fresh driver and its own evidence dir beside the cell's
    const attempt = (k: number) =>
      runCell({
        cellId: c.id,
        scenario: c.scenario.scenario,
        decl: c.target.decl,
        bin: c.target.bin,
        driver: o.driverFor(c),
        cellDir: k ? `${c.dir}-retry-${k}` : c.dir,
        keep: o.keep,
        signal: o.signal,
        serverEnv: c.target.serverEnv,
        judgePool: o.judgePool,
        scenarioDir: dirname(c.scenario.file),
      });
    const once = await runWithRetries(attempt, o.retries ?? 0, o.exitGate?.failOn === 'flaky', o.signal);
    const r = c.repeat === undefined ? once : { ...once, repeat: c.repeat };
    partial.add(r);
    cellLog.add(r);
    o.onResult?.(r);
    return r;
  }).finally(() => partial.close());
  const judges = judgeRunSummary(results, o.judgePool?.defaultModel?.config ?? null);
  const { report, reportPath } = writeReport(o.runDir, () =>
    writeRunReport(
      { ...outcome(results, Boolean(o.signal?.aborted), judges.warnings), gate: o.exitGate },
      { ...o.extra(results), judges: judges.summary },
    ),
  );
  return { report, reportPath, runDir: o.runDir };
}

const runDirOf = (o: CommonRunOptions) => {
  const runId = o.runId ?? newRunId();
  return { runId, runDir: join(o.outDir, runId) };
};

/** The deterministic layer: every scenario × target × phase × repeat through the replay driver. */
export async function runDeterministic(
  o: CommonRunOptions & { repeat?: number },
): Promise<RunResult<{ judges: JudgeRunSummary; repeats?: RepeatStats[] }>> {
  const { runId, runDir } = runDirOf(o);
  const repeat = o.repeat ?? 1;
  const planned = planRun({ layer: 'deterministic', repeat }, o.scenarios, o.targets, runDir);
  const shard = o.shard ? { shard: { index: o.shard.index, count: o.shard.count, planned: planned.length } } : {};
  return executeRun({
    ...o,
    layer: 'deterministic',
    runId,
    runDir,
    planned,
    driverFor: (c) => replayDriver(c.scenario.scenario, c.phase as DeterministicPhase),
    extra: (results) => ({ ...shard, ...(repeat > 1 ? { repeats: repeatStats(results) } : {}) }),
  });
}

/** One agent a real-model run drives: its adapter and the installed binary. */
export interface RunAgent {
  adapter: AgentDriveOptions['adapter'];
  agentBin: string;
  agentVersion: string;
}

/**
 * The agent settings of every cell, plus how many times each cell runs. `agents` lists every
 * agent of the run (each scenario runs through each); without it, the one `adapter`.
 */
export type AgentRunOptions = CommonRunOptions &
  Omit<AgentDriveOptions, 'scenario' | 'adapter' | 'agentBin' | 'agentVersion'> &
  (RunAgent | { agents: RunAgent[] });

const agentsOf = (o: AgentRunOptions): RunAgent[] =>
  'agents' in o ? o.agents : [{ adapter: o.adapter, agentBin: o.agentBin, agentVersion: o.agentVersion }];

/** The real-model layer: every scenario with a real_model block × target × agent × repeat. */
export async function runRealModel(
  o: AgentRunOptions,
): Promise<RunResult<{ repeats: RepeatStats[]; judges: JudgeRunSummary; usage_total: UsageTotal }>> {
  // one cost decision for the whole run, whatever number of agents it drives
  assertAllowed(o.gate);
  const agents = agentsOf(o);
  if (!agents.length) throw new InputError('--agent: no agent to run');
  const byName = new Map<string, RunAgent>(agents.map((a) => [a.adapter.name, a]));
  if (byName.size !== agents.length) throw new InputError('--agent: an agent is named twice');
  const { runId, runDir } = runDirOf(o);
  // a real-model run plans only the cells it runs: it is never sharded
  const planned = planRun(
    { layer: 'real-model', agents: agents.map((a) => a.adapter.name), repeat: o.repeat },
    o.scenarios,
    o.targets,
    runDir,
  ).filter((c) => !o.only || o.only(c));
  const scripted = o.gate.scripted;
  return executeRun({
    ...o,
    layer: 'real-model',
    runId,
    runDir,
    planned,
    options: {
      agent: agents.map((a) => a.adapter.name).join(','),
      agent_version: agents.map((a) => a.agentVersion).join(','),
      ...(agents.length > 1 ? { agents: agents.map((a) => ({ name: a.adapter.name, version: a.agentVersion })) } : {}),
      model: scripted ? 'scripted' : o.model,
      scripted_model: scripted,
      policy: o.policy,
      repeat: o.repeat,
      ...o.options,
    },
    driverFor: (c) => agentDriver({ ...o, ...byName.get(c.agent!)!, scenario: c.scenario.scenario, repeat: c.repeat! }),
    extra: (results) => ({ repeats: repeatStats(results), usage_total: usageTotal(results, scripted) }),
  });
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
