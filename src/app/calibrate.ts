import { join, resolve } from 'node:path';
import { EXIT } from '../core/results.js';
import { loadCalibrationFile } from '../judge/calibrate/cases.js';
import { runCalibration, type CalibrationResult, type CaseJudgment } from '../judge/calibrate/run.js';
import { openJudgeModel } from '../judge/llm/client.js';
import type { JudgeModelConfig } from '../judge/llm/config.js';
import { newRunId } from '../report/report.js';
import { writeJsonAtomic } from '../report/write.js';
import { InputError } from '../util/errors.js';
import { resolveJudge, type JudgeRequest } from './judge-config.js';

export interface CalibrateRequest extends JudgeRequest {
  /** a calibration file (JSON5) of labelled cases */
  casesFile: string;
  /** ask each case this many times, for the flip rate (default 1) */
  repeat?: number;
  /** where the calibrate-<id>/ directory is written (default: runs) */
  outDir?: string;
  /** aborting stops before the next question; what was judged is written, marked interrupted (exit 130) */
  signal?: AbortSignal;
  onCase?: (j: CaseJudgment) => void;
}

interface CalibrateBase {
  judge: JudgeModelConfig;
  /** the calibration.json written */
  file: string;
  exitCode: number;
}

/** Blocked: the cost gate refused the judge and nothing was asked; else the figures over what was judged. */
export type CalibrateResponse = CalibrateBase &
  ({ status: 'blocked'; reason: string } | { status: 'completed' | 'interrupted'; result: CalibrationResult });

/** Put labelled cases through the judge model and measure how often it agrees with the labels. */
export async function calibrate(req: CalibrateRequest): Promise<CalibrateResponse> {
  const repeat = req.repeat ?? 1;
  if (!Number.isInteger(repeat) || repeat < 1)
    throw new InputError(`--repeat: expected a whole number of 1 or more, not ${repeat}`);
  const cases = loadCalibrationFile(req.casesFile);
  const { config, gate } = resolveJudge(req);
  if (!config)
    throw new InputError(
      'judge calibrate needs a judge model: --judge-model <id> (or --judge-model scripted), or MEMEVAL_JUDGE_MODEL',
    );
  const file = join(resolve(req.outDir ?? 'runs'), `calibrate-${newRunId()}`, 'calibration.json');
  if (!gate.allowed) {
    writeJsonAtomic(file, {
      status: 'blocked',
      reason: gate.reason,
      cases_file: resolve(req.casesFile),
      judge: config,
    });
    return { status: 'blocked', reason: gate.reason, judge: config, file, exitCode: EXIT.blocked };
  }
  const model = await openJudgeModel(config);
  try {
    const result = await runCalibration(cases, resolve(req.casesFile), model, repeat, req.onCase, req.signal);
    const status = req.signal?.aborted ? 'interrupted' : 'completed';
    writeJsonAtomic(file, { status, ...result });
    return { status, result, judge: config, file, exitCode: status === 'interrupted' ? EXIT.interrupted : EXIT.ok };
  } finally {
    await model.close();
  }
}
