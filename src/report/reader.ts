import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPORT_SCHEMA_VERSION, reportSchema, type Report } from '../core/results.js';

export class ReportError extends Error {}

/** Read and check a run's report.json (a run dir or the file itself); names the field that is off. */
export function readReport(runDirOrFile: string): Report {
  const file = existsSync(runDirOrFile) && statSync(runDirOrFile).isDirectory() ? join(runDirOrFile, 'report.json') : runDirOrFile;
  if (!existsSync(file)) throw new ReportError(`${file}: no report (is this a run directory under runs/?)`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new ReportError(`${file}: not JSON (${(e as Error).message})`);
  }
  const version = (raw as { schema_version?: unknown })?.schema_version;
  if (version !== REPORT_SCHEMA_VERSION)
    throw new ReportError(`${file}: schema_version ${JSON.stringify(version)} is not ${REPORT_SCHEMA_VERSION}; it was written by another memeval version`);
  const parsed = reportSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ReportError(`${file}: ${issue.path.join('.') || '(top level)'}: ${issue.message}`);
  }
  return parsed.data;
}
