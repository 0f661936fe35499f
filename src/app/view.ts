import { writeComparePage, writeHtmlReport } from '../report/html/view.js';
import { readRun, ReportError } from '../report/reader.js';
import { readRunForView } from '../report/run-log.js';
import { latestRunDir } from '../report/runs.js';

export interface ViewRequest {
  /** a run directory or its report.json (default: the latest run under runsDir) */
  runDir?: string;
  /** where run directories are, to find the latest (default: runs) */
  runsDir?: string;
  /** where to write the page (default <run-dir>/report.html, or <run-dir>/compare-<other run id>.html) */
  out?: string;
  /** an earlier run to compare with: the page leads with the cells whose verdict differs */
  compare?: string;
}

/** Both runs of a comparison must be whole reports of this schema: a partial or foreign one is refused, never read as "no changes". */
function readForCompare(dir: string, which: string) {
  try {
    return readRun(dir);
  } catch (e) {
    if (e instanceof ReportError)
      throw new ReportError(
        `--compare: ${which}: ${e.message}`,
        e.problems.map((p) => `--compare: ${which}: ${p}`),
      );
    throw e;
  }
}

/** Write one self-contained HTML page for a run (one still running: what has finished); returns the file written. */
export function writeRunPage(req: ViewRequest = {}): string {
  const dir = req.runDir ?? latestRunDir(req.runsDir ?? 'runs');
  if (req.compare !== undefined)
    return writeComparePage(
      readForCompare(dir, 'this run'),
      readForCompare(req.compare, 'the run to compare with'),
      req.out,
    );
  const { report, runDir } = readRunForView(dir);
  return writeHtmlReport(report, runDir, req.out);
}
