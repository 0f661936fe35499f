import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { REPORT_SCHEMA_VERSION, reportSchema, type Report } from '../core/results.js';
import { InputError, messageOf } from '../util/errors.js';

/** A report that cannot be read as this memeval's: bad input to the command given it (exit 3). */
export class ReportError extends InputError {}

/** Read and check a run's report.json (a run dir or the file itself); names the field that is off. */
export function readReport(runDirOrFile: string): Report {
  return readRun(runDirOrFile).report;
}

export interface ReadRun {
  report: Report;
  /** absolute path of report.json */
  file: string;
  /** the run directory (cell_dir entries are relative to it) */
  runDir: string;
}

/** readReport, plus where the report is: what view, diff, merge, sql and baselines need. */
export function readRun(runDirOrFile: string): ReadRun {
  const abs = resolve(runDirOrFile);
  const file = existsSync(abs) && statSync(abs).isDirectory() ? join(abs, 'report.json') : abs;
  if (!existsSync(file)) throw new ReportError(`${file}: no report (is this a run directory under runs/?)`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new ReportError(`${file}: not JSON (${messageOf(e)})`);
  }
  const version = (raw as { schema_version?: unknown })?.schema_version;
  if (version !== REPORT_SCHEMA_VERSION)
    throw new ReportError(
      `${file}: schema_version ${JSON.stringify(version)} is not ${REPORT_SCHEMA_VERSION}; it was written by another memeval version`,
    );
  const parsed = reportSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .slice(0, 10)
      .map((i) => `${file}: ${i.path.join('.') || '(top level)'}: ${i.message}`);
    throw new ReportError(problems.join('\n'), problems);
  }
  return { report: parsed.data, file, runDir: dirname(file) };
}
