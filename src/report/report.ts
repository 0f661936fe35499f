import { randomBytes } from 'node:crypto';
import { EXIT, REPORT_SCHEMA_VERSION, type CellResult, type Report, type Summary, type TargetInfo, type Verdict } from '../core/results.js';

export { REPORT_SCHEMA_VERSION, type Report, type Summary, type TargetInfo };

export function newRunId(now = new Date()): string {
  return `${now.toISOString().replace(/[:.]/g, '-').replace(/-\d{3}Z$/, 'Z')}-${randomBytes(3).toString('hex')}`;
}

/** Totals and the exit code the CLI must use: an interrupted run exits 130, whatever its cells say. */
export function summarize(results: CellResult[], interrupted: boolean): Summary {
  const by: Partial<Record<Verdict, number>> = {};
  for (const r of results) by[r.verdict] = (by[r.verdict] ?? 0) + 1;
  const failed = results.filter((r) => r.fails_run).length;
  return {
    cells: results.length,
    passed: results.length - failed - (by.skipped ?? 0),
    failed,
    by_verdict: by,
    exit_code: interrupted ? EXIT.interrupted : failed > 0 ? EXIT.failed : EXIT.ok,
  };
}
