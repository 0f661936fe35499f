import { join, resolve } from 'node:path';
import type { Report } from '../../core/results.js';
import { diffReports } from '../diff.js';
import type { PartialReport } from '../run-log.js';
import { writeFileAtomic } from '../write.js';
import { assertComparable, compareModel } from './compare.js';
import { gatherAll } from './gather.js';
import { renderHtml } from './render.js';

/** Write the run's HTML report (default `<run-dir>/report.html`); returns its path. */
export function writeHtmlReport(report: Report | PartialReport, runDir: string, out?: string): string {
  const file = out ? resolve(out) : join(runDir, 'report.html');
  writeFileAtomic(file, renderHtml(report, gatherAll(report, runDir)));
  return file;
}

/**
 * Write the page of run `later` compared with run `earlier` (default `<later-dir>/compare-<earlier id>.html`):
 * the changed cells first, each opening its detail in either run. Runs with no cell in common are refused.
 */
export function writeComparePage(
  later: { report: Report; runDir: string },
  earlier: { report: Report; runDir: string },
  out?: string,
): string {
  const diff = diffReports(earlier.report, later.report);
  assertComparable(earlier.report, later.report, diff);
  const file = out ? resolve(out) : join(later.runDir, `compare-${earlier.report.run_id}.html`);
  const compare = {
    model: compareModel(earlier.report, later.report, diff),
    other: { results: earlier.report.results, extras: gatherAll(earlier.report, earlier.runDir) },
  };
  writeFileAtomic(file, renderHtml(later.report, gatherAll(later.report, later.runDir), compare));
  return file;
}
