import { latestRunDir } from '../report/runs.js';
import { readReport } from '../report/reader.js';
import { InputError } from '../util/errors.js';

/** The latest run under the runs folder and the ids of its cells that failed the run (--last-failed). */
export interface LastFailed {
  runDir: string;
  runId: string;
  cellIds: string[];
}

/**
 * The cells `--last-failed` reruns. A latest run that cannot be read, or that did not complete
 * (interrupted, blocked, failed to write), cannot say which cells failed: exit 3 with the reason,
 * never "nothing failed".
 */
export function lastFailed(outDir: string): LastFailed {
  const runDir = latestRunDir(outDir);
  let report;
  try {
    report = readReport(runDir);
  } catch (e) {
    throw new InputError(`--last-failed: the latest run ${runDir} cannot be read: ${(e as Error).message}`);
  }
  if (report.status !== 'completed')
    throw new InputError(
      `--last-failed: the latest run ${runDir} is ${report.status}${report.reason ? ` (${report.reason})` : ''}: it does not say which cells failed; run without --last-failed`,
    );
  return { runDir, runId: report.run_id, cellIds: report.results.filter((r) => r.fails_run).map((r) => r.cell_id) };
}
