import { join } from 'node:path';
import { MEMEVAL_VERSION } from '../util/paths.js';
import { EXIT, type Report } from '../core/results.js';
import { newRunId, REPORT_SCHEMA_VERSION } from './report.js';
import { writeJsonAtomic } from './write.js';

/** The report of a run the cost gate stopped: what was asked for and why nothing ran. */
export function writeBlockedReport(
  outDir: string,
  reason: string,
  scenarios: string[],
  options: Record<string, unknown>,
  layer: Report['layer'] = 'real-model',
): { report: Report; reportPath: string } {
  const now = new Date().toISOString();
  const report: Report = {
    schema_version: REPORT_SCHEMA_VERSION,
    run_id: newRunId(),
    status: 'blocked',
    reason,
    memeval_version: MEMEVAL_VERSION,
    layer,
    started_at: now,
    ended_at: now,
    options,
    scenarios,
    targets: [],
    results: [],
    matrix: { targets: [], rows: [], totals: {} },
    summary: { cells: 0, passed: 0, failed: 0, by_verdict: {}, exit_code: EXIT.blocked },
    warnings: [],
  };
  const reportPath = join(outDir, report.run_id, 'report.json');
  writeJsonAtomic(reportPath, report);
  return { report, reportPath };
}
