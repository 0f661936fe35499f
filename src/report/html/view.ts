import { join, resolve } from 'node:path';
import type { Report } from '../../core/results.js';
import type { PartialReport } from '../run-log.js';
import { writeFileAtomic } from '../write.js';
import { gatherAll } from './gather.js';
import { renderHtml } from './render.js';

/** Write the run's HTML report (default `<run-dir>/report.html`); returns its path. */
export function writeHtmlReport(report: Report | PartialReport, runDir: string, out?: string): string {
  const file = out ? resolve(out) : join(runDir, 'report.html');
  writeFileAtomic(file, renderHtml(report, gatherAll(report, runDir)));
  return file;
}
