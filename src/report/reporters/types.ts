import type { Report } from '../../core/results.js';

export interface ReporterContext {
  /** the run directory: files a reporter writes go here */
  runDir: string;
  /** scenario id -> its file, for annotations and JUnit `file` attributes */
  scenarioFiles: Record<string, string>;
  env: NodeJS.ProcessEnv;
  /** stdout of the run (the json reporter prints the report; github prints workflow commands) */
  stdout: (s: string) => void;
}

export interface Reporter {
  /** renders the report; returns the files it wrote */
  write(report: Report, ctx: ReporterContext): string[];
}
