import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { REPORT_SCHEMA_VERSION, reportSchema, type Report } from '../core/results.js';
import { InputError } from '../util/errors.js';

export interface ReadReport {
  report: Report;
  /** absolute path of report.json */
  file: string;
  /** the run directory (cell_dir entries are relative to it) */
  runDir: string;
}

/**
 * Read and check a report: a run directory or a report.json. Every consumer (reporters, view,
 * diff, merge, baselines) reads through here, so a report of another schema version or a
 * damaged one is refused in one place, naming the file and the field (an InputError: exit 3).
 */
export function readReport(runDirOrFile: string): ReadReport {
  const abs = resolve(runDirOrFile);
  if (!existsSync(abs)) throw new InputError(`${abs}: no such run directory or report file`);
  const file = statSync(abs).isDirectory() ? join(abs, 'report.json') : abs;
  if (!existsSync(file)) throw new InputError(`${file}: missing; is ${abs} a run directory (runs/<run-id>)?`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new InputError(`${file}: not valid JSON (${(e as Error).message}); the run may have been cut off before its report was written`);
  }
  const version = (raw as { schema_version?: unknown } | null)?.schema_version;
  if (version !== REPORT_SCHEMA_VERSION)
    throw new InputError(
      `${file}: schema_version is ${JSON.stringify(version)}, this memeval reads version ${REPORT_SCHEMA_VERSION}; ` +
        `re-run it with this memeval, or read it with the memeval version that wrote it`,
    );
  const parsed = reportSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.slice(0, 10).map((i) => `${file}: ${i.path.map(String).join('.') || '(top level)'}: ${i.message}`);
    throw new InputError(problems.join('\n'), problems);
  }
  return { report: parsed.data, file, runDir: dirname(file) };
}
