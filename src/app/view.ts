import { writeHtmlReport } from '../report/html/view.js';
import { readRun } from '../report/reader.js';
import { latestRunDir } from '../report/runs.js';

export interface ViewRequest {
  /** a run directory or its report.json (default: the latest run under runsDir) */
  runDir?: string;
  /** where run directories are, to find the latest (default: runs) */
  runsDir?: string;
  /** where to write the page (default <run-dir>/report.html) */
  out?: string;
}

/** Write one self-contained HTML page for a run; returns the file written. */
export function writeRunPage(req: ViewRequest = {}): string {
  const { report, runDir } = readRun(req.runDir ?? latestRunDir(req.runsDir ?? 'runs'));
  return writeHtmlReport(report, runDir, req.out);
}
