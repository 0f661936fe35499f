import type { Report } from '../../core/results.js';
import { InputError, nearest, messageOf } from '../../util/errors.js';
import { github } from './github.js';
import { json } from './json.js';
import { junit } from './junit.js';
import { markdown } from './markdown.js';
import type { Reporter, ReporterContext } from './types.js';

/** `console` is the run's own live output; the others render the finished report. */
export const REPORTERS = { json, junit, markdown, github } as const satisfies Record<string, Reporter>;
export type ReporterName = keyof typeof REPORTERS | 'console';
export const REPORTER_NAMES = ['console', ...Object.keys(REPORTERS)] as ReporterName[];

export function checkReporterNames(names: string[]): ReporterName[] {
  const problems = names
    .filter((n) => !(REPORTER_NAMES as string[]).includes(n))
    .map((n) => {
      const guess = nearest(n, REPORTER_NAMES);
      return `--reporter: unknown reporter "${n}"${guess ? ` (did you mean "${guess}"?)` : ''}; one of ${REPORTER_NAMES.join(', ')}`;
    });
  if (problems.length) throw new InputError(problems.join('\n'), problems);
  return names as ReporterName[];
}

export interface ReporterOutcome {
  name: ReporterName;
  files: string[];
  error?: string;
}

/**
 * Run each reporter on its own: one that throws is recorded and the others still run
 * (report.json is written before any reporter, so it is never lost to one).
 */
export function runReporters(
  report: Report,
  runDir: string,
  names: ReporterName[],
  opts: Partial<Omit<ReporterContext, 'runDir'>> = {},
): ReporterOutcome[] {
  const ctx: ReporterContext = {
    runDir,
    scenarioFiles: opts.scenarioFiles ?? {},
    env: opts.env ?? process.env,
    stdout: opts.stdout ?? ((s) => process.stdout.write(s + '\n')),
  };
  const out: ReporterOutcome[] = [];
  for (const name of new Set(names)) {
    if (name === 'console') continue;
    try {
      out.push({ name, files: REPORTERS[name].write(report, ctx) });
    } catch (e) {
      out.push({ name, files: [], error: messageOf(e) });
    }
  }
  return out;
}
