import { EXIT } from '../core/results.js';
import { diffReports, type ReportDiff } from '../report/diff.js';
import { readReport } from '../report/reader.js';

/**
 * Compare two runs (directories or report.json files): cells that regressed, were fixed,
 * changed verdict or were not checked, new and removed cells. Exit 1 when any regressed.
 */
export function diffRuns(earlier: string, later: string): { diff: ReportDiff; exitCode: number } {
  const diff = diffReports(readReport(earlier), readReport(later));
  return { diff, exitCode: diff.regressed.length ? EXIT.failed : EXIT.ok };
}
