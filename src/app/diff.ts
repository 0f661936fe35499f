import { EXIT } from '../core/results.js';
import { diffColumns, diffFailures, diffReports, versionHints, type ReportDiff } from '../report/diff.js';
import { readReport } from '../report/reader.js';
import { InputError } from '../util/errors.js';

/**
 * Compare two runs (directories or report.json files): cells that regressed, fail differently,
 * were fixed, changed verdict or were not checked, new and removed cells. Exit 1 for what
 * diffFailures names: a regression, a different failure, a new failing cell, or a cell checked
 * in the earlier run with no result in the later.
 * With `columns` ("a,b"), column a of the first run against column b of the second (the
 * first again when no second is given): two versions of one target, matched by scenario and phase.
 */
export function diffRuns(
  earlier: string,
  later: string | undefined,
  columns?: string,
): { diff: ReportDiff; exitCode: number } {
  const a = readReport(earlier);
  const b = later === undefined ? a : readReport(later);
  let diff: ReportDiff;
  if (columns !== undefined) {
    const pair = columns.split(',').map((c) => c.trim());
    if (pair.length !== 2 || pair.some((c) => !c))
      throw new InputError(
        `--columns: "${columns}" is not two column names; give "<column of run-a>,<column of run-b>", e.g. --columns server-memory@2025.11.25,server-memory`,
      );
    diff = diffColumns(a, pair[0], b, pair[1]);
  } else {
    if (later === undefined)
      throw new InputError(
        'diff: one run given without --columns; give two runs, or --columns <a>,<b> to compare two columns of it',
      );
    const hints = versionHints(a, b);
    diff = { ...diffReports(a, b), ...(hints.length ? { version_hints: hints } : {}) };
  }
  return { diff, exitCode: diffFailures(diff).length ? EXIT.failed : EXIT.ok };
}
