import { appendFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { z } from 'zod';
import {
  cellResultSchema,
  REPORT_SCHEMA_VERSION,
  reportSchema,
  type CellResult,
  type Report,
} from '../core/results.js';
import { JsonlError, readJsonl, tornLine } from '../util/jsonl.js';
import { liveness } from '../util/live-run.js';
import { MEMEVAL_VERSION } from '../util/paths.js';
import { buildMatrix } from './matrix.js';
import { readRun, ReportError } from './reader.js';
import { summarize } from './report.js';
import type { RunOutcome } from './run-report.js';
import { writeJsonAtomic } from './write.js';
import { messageOf } from '../util/errors.js';

/**
 * A run writes report.json only at its end. Until then its folder holds `live.json` (what the
 * run set out to do: the report's head and the cells this process runs) and `cells.jsonl` (each
 * cell's result, appended as it ends), so that `view` can show a run still being written, or
 * one cut off before its report. Both go once the report is written.
 */
const HEAD = 'live.json';
const CELLS = 'cells.jsonl';

const pendingCellSchema = z.object({
  cell_id: z.string(),
  scenario: z.string(),
  target: z.string(),
  phase: z.string(),
  repeat: z.number().optional(),
});
export type PendingCell = z.infer<typeof pendingCellSchema>;

const headSchema = reportSchema
  .pick({
    schema_version: true,
    run_id: true,
    memeval_version: true,
    layer: true,
    started_at: true,
    options: true,
    config: true,
    scenarios: true,
    targets: true,
    plan: true,
  })
  .extend({ cells: z.array(pendingCellSchema) });
export type RunHead = z.infer<typeof headSchema>;

/** Where a run without its report stands. */
export interface LiveProgress {
  /** running: a process is still writing it; cut off: the process that wrote it is gone */
  state: 'running' | 'cut off';
  why: string;
  finished: number;
  planned: number;
  /** the cells not finished yet: never a verdict, let alone a pass */
  pending: PendingCell[];
}

/** The report as far as a run without report.json has got: the finished cells only. */
export type PartialReport = Pick<
  Report,
  | 'schema_version'
  | 'run_id'
  | 'memeval_version'
  | 'layer'
  | 'started_at'
  | 'ended_at'
  | 'options'
  | 'config'
  | 'scenarios'
  | 'targets'
  | 'plan'
  | 'results'
  | 'matrix'
  | 'summary'
  | 'warnings'
> & { status: LiveProgress['state']; live: LiveProgress };

export interface CellLog {
  add(r: CellResult): void;
  /** the report is written: the log has nothing more to say */
  close(): void;
}

/** Start a run's log of finished cells: the head now (with the cells this process runs), a line per cell as it ends. */
export function openCellLog(o: RunOutcome, cells: PendingCell[]): CellLog {
  const { runDir } = o;
  const head: RunHead = {
    schema_version: REPORT_SCHEMA_VERSION,
    run_id: o.runId,
    memeval_version: MEMEVAL_VERSION,
    layer: o.layer,
    started_at: o.startedAt,
    options: o.options,
    ...(o.config ? { config: o.config } : {}),
    scenarios: o.scenarios,
    targets: o.targets,
    ...(o.plan ? { plan: o.plan } : {}),
    cells,
  };
  writeJsonAtomic(join(runDir, HEAD), head);
  const file = join(runDir, CELLS);
  return {
    // one write per line, by the one process that runs the cells: lines never interleave. A line
    // lost to a full disk only leaves that cell pending in `view`, never passed: the run goes on
    add: (r) => {
      try {
        appendFileSync(file, JSON.stringify({ ...r, cell_dir: relative(runDir, r.cell_dir) }) + '\n');
      } catch {
        /* see above */
      }
    },
    close: () => {
      rmSync(file, { force: true });
      rmSync(join(runDir, HEAD), { force: true });
    },
  };
}

/**
 * A run's report for `view`: report.json when the run wrote it, else the partial report its
 * cell log gives (running, or cut off when the process writing it is gone).
 */
export function readRunForView(runDir: string): { report: Report | PartialReport; runDir: string } {
  if (existsSync(join(runDir, 'report.json')) || !existsSync(join(runDir, HEAD))) return readRun(runDir);
  const partial = readPartial(runDir);
  // the run finished between the two looks: its report is there now
  return partial ? { report: partial, runDir } : readRun(runDir);
}

function readPartial(runDir: string): PartialReport | undefined {
  const file = join(runDir, HEAD);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ReportError(`${file}: not JSON (${messageOf(e)})`);
  }
  const parsed = headSchema.safeParse(raw);
  if (!parsed.success)
    throw new ReportError(
      `${file}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(top level)'}: ${i.message}`).join('; ')}`,
    );
  const { cells: planned, ...head } = parsed.data;
  const cellsFile = join(runDir, CELLS);
  let log;
  try {
    log = readJsonl(cellsFile, cellResultSchema);
  } catch (e) {
    if (e instanceof JsonlError) throw new ReportError(e.message);
    throw e;
  }
  const results = log.records;
  const done = new Set(results.map((r) => r.cell_id));
  const pending = planned.filter((c) => !done.has(c.cell_id));
  const live = liveness(runDir);
  const state = live.live ? 'running' : 'cut off';
  return {
    ...head,
    status: state,
    // a run without its end: the page shows where it got to instead
    ended_at: state,
    results,
    matrix: buildMatrix(
      results,
      head.targets.map((t) => t.name),
    ),
    summary: summarize(results, true),
    warnings: [
      ...(log.torn !== undefined ? [tornLine(cellsFile, log.torn)] : []),
      ...new Set(results.flatMap((r) => r.warnings.map((w) => `${r.target}: ${w}`))),
    ],
    live: {
      state,
      why: live.live ? live.why : 'the process writing it is gone, and it wrote no report',
      finished: results.length,
      planned: planned.length,
      pending,
    },
  };
}
