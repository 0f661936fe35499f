import { writeHtmlReport } from '../report/html/view.js';
import { readRunForView } from '../report/run-log.js';
import { latestRunDir } from '../report/runs.js';

export interface ViewRequest {
  /** a run directory or its report.json (default: the latest run under runsDir) */
  runDir?: string;
  /** where run directories are, to find the latest (default: runs) */
  runsDir?: string;
  /** where to write the page (default <run-dir>/report.html) */
  out?: string;
}

/** Write one self-contained HTML page for a run (one still running: what has finished); returns the file written. */
export function writeRunPage(req: ViewRequest = {}): string {
  const { report, runDir } = readRunForView(req.runDir ?? latestRunDir(req.runsDir ?? 'runs'));
  return writeHtmlReport(report, runDir, req.out);
}
