import { dirname, join, resolve } from 'node:path';
import { EXIT, type Report } from '../core/results.js';
import { openJudgeModel } from '../judge/llm/client.js';
import type { JudgeModelConfig } from '../judge/llm/config.js';
import { JudgePool, judgeGateAll, type JudgeStrictness } from '../judge/llm/pool.js';
import { rejudgeRun } from '../cell/rejudge.js';
import { readReport } from '../report/reader.js';
import { newRunId } from '../report/report.js';
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
    const r = await rejudgeRun(source, {
      runDir,
      scenarios,
      scenariosDir,
      judgePool: pool,
      onlyLlm: Boolean(req.onlyLlm),
      outDir,
      signal: req.signal,
    });
    // an interrupted or blocked run keeps its exit code: re-judging does not complete it
    return {
      blocked: false,
      source,
      runDir,
      judge: config,
      report: r.report,
      reportPath: r.reportPath,
      exitCode: r.report.summary.exit_code,
    };
  } finally {
    await pool.close();
  }
}
