import { resolve } from 'node:path';
import { EXIT, type Report } from '../core/results.js';
import { formatGate, gate, readBaseline, readExpectedFailures, type FailOn, type GateResult } from '../report/gate.js';
import { writeHtmlReport } from '../report/html/view.js';
import { mergeReports } from '../report/merge.js';
import { readRun } from '../report/reader.js';
import { checkReporterNames, runReporters, type ReporterOutcome } from '../report/reporters/index.js';
import { writeJsonAtomic } from '../report/write.js';

export interface MergeRequest {
  /** partial runs (shards, or one job per target) of the same memeval version and scenarios */
  runDirs: string[];
  /** where the merged run directory is written (default: runs) */
  outDir?: string;
  /** reporters for the merged run (default: console, which prints nothing here) */
  reporters?: string[];
  /** a previous whole run (directory or report.json): a cell failing there the same way is not a regression */
  baseline?: string;
  /** cells that may fail the way listed without failing the run */
  expectedFailures?: string;
  failOn?: FailOn;
  /** where the gate's lines go, as soon as it has decided (before the reporters run) */
  log?: (line: string) => void;
  /** where reporters print (the json report, GitHub workflow commands); default stdout */
  stdout?: (s: string) => void;
}

export interface MergeResponse {
  report: Report;
  runDir: string;
  reportPath: string;
  /** how many runs were merged */
  parts: number;
  /** the HTML page written beside the report */
  html: string;
  gate?: GateResult;
  reporters: ReporterOutcome[];
  /** the merged run's exit code (a blocked or interrupted part's), 1 when a reporter failed */
  exitCode: number;
}

/**
 * Combine partial runs into one run directory with its report, HTML page and reporters.
 * Refuses (exit 3) parts that are not one complete run; everything is read before anything is written.
 */
export function merge(req: MergeRequest): MergeResponse {
  const reporters = checkReporterNames(req.reporters ?? ['console']);
  const parts = req.runDirs.map((d) => readRun(d));
  const gateInput =
    req.baseline || req.expectedFailures || req.failOn
      ? {
          baseline: req.baseline ? readBaseline(req.baseline) : undefined,
          expected: req.expectedFailures ? readExpectedFailures(req.expectedFailures) : undefined,
          failOn: req.failOn,
        }
      : undefined;
  const { report, runDir, reportPath } = mergeReports(parts, resolve(req.outDir ?? 'runs'));
  let gated: GateResult | undefined;
  if (gateInput) {
    gated = gate(report, gateInput);
    report.summary.exit_code = gated.exit_code;
    Object.assign(report, { gate: gated });
    writeJsonAtomic(reportPath, report);
    for (const l of formatGate(gated, report.results)) req.log?.(l);
  }
  const html = writeHtmlReport(report, runDir);
  const outcomes = runReporters(report, runDir, reporters, req.stdout ? { stdout: req.stdout } : {});
  const exitCode =
    report.summary.exit_code === 0 && !outcomes.some((o) => o.error)
      ? EXIT.ok
      : report.summary.exit_code || EXIT.failed;
  return { report, runDir, reportPath, parts: parts.length, html, gate: gated, reporters: outcomes, exitCode };
}
