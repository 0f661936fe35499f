import { join, relative } from 'node:path';
import type { RunConfig } from '../core/config.js';
import type { CellResult, Report, ReportOptions, RunPlan, TargetInfo } from '../core/results.js';
import { readCallsLog } from '../mcp/calls-log.js';
import { JsonlError, tornLine } from '../util/jsonl.js';
import { MEMEVAL_VERSION } from '../util/paths.js';
import { gate, type GateInput, type GateResult } from './gate.js';
import { buildMatrix } from './matrix.js';
import { REPORT_SCHEMA_VERSION, summarize } from './report.js';
import { writeFileAtomic, writeJsonAtomic } from './write.js';

export interface RunOutcome {
  runId: string;
  runDir: string;
  layer: Report['layer'];
  startedAt: string;
  options: ReportOptions;
  /** the resolved config the run was started with (API and CLI runs) */
  config?: RunConfig;
  scenarios: string[];
  targets: TargetInfo[];
  results: CellResult[];
  interrupted: boolean;
  /** run-level warnings beside the cells' own (e.g. llm judges that had no model) */
  warnings?: string[];
  /** what the run set out to do (every planned cell, shard, file hashes) */
  plan?: RunPlan;
  /** a baseline or expected failures: the gate decides the exit code the report records */
  gate?: GateInput;
}

/**
 * Close a run directory, for either layer: one calls log for the whole run beside the report
 * (each line labelled with its cell), cell dirs made relative to the run, and report.json
 * written atomically.
 */
export function writeRunReport<X extends object>(
  o: RunOutcome,
  extra: X,
): { report: Report & X & { gate?: GateResult }; reportPath: string } {
  const allCalls: string[] = [];
  const logProblems: string[] = [];
  for (const r of o.results) {
    const label = {
      cell_id: r.cell_id,
      scenario: r.scenario,
      target: r.target,
      phase: r.phase,
      ...(r.agent ? { repeat: r.agent.repeat } : {}),
    };
    const f = join(r.cell_dir, 'calls.jsonl');
    try {
      const log = readCallsLog(f);
      for (const rec of log.calls) allCalls.push(JSON.stringify({ ...label, ...rec }) + '\n');
      if (log.torn !== undefined)
        logProblems.push(`${r.cell_id}: ${tornLine(f, log.torn)}; that call is not in the run's calls.jsonl`);
    } catch (e) {
      if (!(e instanceof JsonlError)) throw e;
      logProblems.push(`${r.cell_id}: its calls are not in the run's calls.jsonl: ${e.message}`);
    }
    r.cell_dir = relative(o.runDir, r.cell_dir);
  }
  writeFileAtomic(join(o.runDir, 'calls.jsonl'), allCalls.join(''));
  const report = {
    schema_version: REPORT_SCHEMA_VERSION,
    run_id: o.runId,
    status: o.interrupted ? ('interrupted' as const) : ('completed' as const),
    memeval_version: MEMEVAL_VERSION,
    layer: o.layer,
    started_at: o.startedAt,
    ended_at: new Date().toISOString(),
    options: o.options,
    ...(o.config ? { config: o.config } : {}),
    scenarios: o.scenarios,
    targets: o.targets,
    results: o.results,
    matrix: buildMatrix(
      o.results,
      o.targets.map((t) => t.name),
    ),
    summary: summarize(o.results, o.interrupted),
    warnings: [
      ...(o.warnings ?? []),
      ...logProblems,
      ...new Set(o.results.flatMap((r) => r.warnings.map((w) => `${r.target}: ${w}`))),
    ],
    ...(o.plan ? { plan: o.plan } : {}),
    ...extra,
  };
  // the report says what the run exits with, so the gate's decision goes into it
  const gated = o.gate ? gate(report, o.gate) : undefined;
  if (gated) report.summary.exit_code = gated.exit_code;
  const reportPath = join(o.runDir, 'report.json');
  const written = gated ? { ...report, gate: gated } : report;
  writeJsonAtomic(reportPath, written);
  return { report: written, reportPath };
}
