import { dirname, join, resolve } from 'node:path';
import { EXIT, type CellResult, type Report, type Summary } from '../core/results.js';
import { rejudgeCells } from '../cell/rejudge.js';
import { openJudgeModel } from '../judge/llm/client.js';
import type { JudgeModelConfig } from '../judge/llm/config.js';
import { JudgePool, judgeGateAll, type JudgeStrictness } from '../judge/llm/pool.js';
import { judgeRunSummary } from '../judge/llm/summary.js';
import { buildMatrix } from '../report/matrix.js';
import { readReport } from '../report/reader.js';
import { newRunId, summarize } from '../report/report.js';
import { repeatStats } from '../report/repeats.js';
import { writeJsonAtomic } from '../report/write.js';
import { BUILTIN_SCENARIOS } from '../util/paths.js';
import { resolveJudge, type JudgeRequest } from './judge-config.js';
import { loadScenarioDir } from './load.js';

export interface RejudgeRequest extends JudgeRequest {
  /** a run directory, or its report.json */
  runDir: string;
  /** re-judge only the assertions that call a model */
  onlyLlm?: boolean;
  /** scenario folder (default: the one the run used) */
  scenariosDir?: string;
  /** where the new report's directory is written (default: beside the run) */
  outDir?: string;
  /** aborting keeps the cells not judged yet as they were; the report says interrupted (exit 130) */
  signal?: AbortSignal;
}

interface RejudgeBase {
  /** the report re-judged, as read */
  source: Report;
  /** the run directory it was read from */
  runDir: string;
  judge: JudgeModelConfig | null;
  /** the new report.json */
  reportPath: string;
  /** what the CLI exits with: the run's own where its status decides, 2 when blocked, 130 when interrupted */
  exitCode: number;
}

/** Blocked: the cost gate refused a judge and the report written says only that; else the new report. */
export type RejudgeResponse = RejudgeBase &
  ({ blocked: true; reason: string } | { blocked: false; report: Report & Record<string, unknown> });

/**
 * The run's --judge-level and --judge-min-confidence, as it recorded them: re-judged without them,
 * a warn-level check the strict run let decide would decide nothing, and an unsure judgment the
 * run made `error` could pass, while the new report still said the run's options.
 */
function strictnessOf(options: Report['options']): JudgeStrictness {
  return {
    ...(options.judge_level ? { level: options.judge_level } : {}),
    ...(options.judge_min_confidence !== undefined ? { minConfidence: options.judge_min_confidence } : {}),
  };
}

/**
 * Judge a saved run again from its evidence (nothing is replayed) and write a new report naming
 * the run it re-judged. A judge the cost gate refuses writes a blocked report and judges nothing.
 */
export async function rejudge(req: RejudgeRequest): Promise<RejudgeResponse> {
  const source = readReport(req.runDir);
  const runDir = req.runDir.endsWith('.json') ? dirname(resolve(req.runDir)) : resolve(req.runDir);
  const scenariosDir =
    req.scenariosDir ??
    (typeof source.options.scenarios_dir === 'string' ? source.options.scenarios_dir : BUILTIN_SCENARIOS);
  const scenarios = loadScenarioDir(scenariosDir);
  const { config } = resolveJudge(req);
  const gate = judgeGateAll(
    config,
    scenarios.flatMap((s) => s.scenario.assertions),
    Boolean(req.iUnderstandModelCost),
  );
  const outDir = req.outDir ?? dirname(runDir);
  if (!gate.allowed) {
    const reportPath = join(resolve(outDir), `rejudge-${newRunId()}`, 'report.json');
    writeJsonAtomic(reportPath, {
      status: 'blocked',
      reason: gate.reason,
      rejudged_from: { run_id: source.run_id, run_dir: runDir },
      judge_model: config,
    });
    return { blocked: true, reason: gate.reason, source, runDir, judge: config, reportPath, exitCode: EXIT.blocked };
  }
  const pool = new JudgePool(config ? await openJudgeModel(config) : null, strictnessOf(source.options));
  try {
    const onlyLlm = Boolean(req.onlyLlm);
    const results = await rejudgeCells(source, {
      runDir,
      scenarios,
      scenariosDir,
      judgePool: pool,
      onlyLlm,
      signal: req.signal,
    });
    const runId = newRunId();
    const report = rejudgedReport(source, results, {
      runId,
      runDir,
      onlyLlm,
      judge: pool.defaultModel?.config ?? null,
      interrupted: Boolean(req.signal?.aborted),
    });
    const reportPath = join(resolve(outDir), `rejudge-${runId}`, 'report.json');
    writeJsonAtomic(reportPath, report);
    // an interrupted or blocked run keeps its exit code: re-judging does not complete it
    return { blocked: false, source, runDir, judge: config, report, reportPath, exitCode: report.summary.exit_code };
  } finally {
    await pool.close();
  }
}

/**
 * The run's report with its cells judged again: a new run id naming the run it re-judged, the
 * matrix, totals, repeats and the judges' summary computed again from the new verdicts.
 */
function rejudgedReport(
  source: Report,
  results: CellResult[],
  o: { runId: string; runDir: string; onlyLlm: boolean; judge: JudgeModelConfig | null; interrupted: boolean },
): Report & Record<string, unknown> {
  const judges = judgeRunSummary(results, o.judge);
  // the run's gate decided over the verdicts it had: rejudge decides by fails_run (see rejudgedSummary)
  const { gate: stale, ...rest } = source as Report & { gate?: unknown };
  return {
    ...rest,
    run_id: o.runId,
    started_at: new Date().toISOString(),
    ended_at: new Date().toISOString(),
    ...(o.interrupted
      ? {
          status: 'interrupted' as const,
          reason: 'rejudge interrupted: the cells it had not reached keep the verdicts of the run',
        }
      : {}),
    rejudged_from: { run_id: source.run_id, run_dir: o.runDir, only: o.onlyLlm ? 'llm' : 'all' },
    options: { ...source.options, judge_model: o.judge },
    results,
    matrix: buildMatrix(
      results,
      source.targets.map((t) => t.name),
    ),
    summary: rejudgedSummary(source, results, o.interrupted),
    ...(source.repeats ? { repeats: repeatStats(results) } : {}),
    judges: judges.summary,
    // the earlier run's own judge warning is replaced by this one's
    warnings: [
      ...judges.warnings,
      ...(stale
        ? [
            "the run's gate (baseline or expected failures) is not applied again: every cell that fails the run counts in this exit code",
          ]
        : []),
      ...source.warnings.filter((w) => !w.startsWith('no judge model configured')),
    ],
  };
}

/**
 * The cells' totals, with the exit code the run itself had where its status decides it: a
 * rejudged interrupted run is still partial (130), a blocked run still ran nothing (2); an
 * interrupted rejudge is partial too.
 */
function rejudgedSummary(report: Report, results: CellResult[], interrupted: boolean): Summary {
  const s = summarize(results, interrupted || report.status === 'interrupted');
  if (report.status === 'blocked') return { ...s, exit_code: EXIT.blocked };
  if (report.status === 'failed' && s.exit_code === EXIT.ok) return { ...s, exit_code: EXIT.failed };
  return s;
}
