import { latestRunDir } from '../report/runs.js';
import { readReport } from '../report/reader.js';
import { InputError, MemevalError, messageOf } from '../util/errors.js';

/** The latest run under the runs folder and the ids of its cells that failed the run (--last-failed). */
export interface LastFailed {
  runDir: string;
  runId: string;
  cellIds: string[];
  /** every cell that run planned (all shards'): a rerun must plan the same */
  planned: string[];
}

/**
 * The latest run planned exactly this run's cells and none of them failed: nothing to rerun.
 * Not an input error: the CLI says so and exits 0 (like Playwright's --last-failed).
 */
export class NothingToRerun extends MemevalError {
  constructor(runId: string) {
    super('NOTHING_TO_RERUN', `--last-failed: no cell failed the run in the latest run ${runId}; nothing to rerun`);
  }
}

/**
 * The cells `--last-failed` reruns. A latest run that cannot be read, that did not complete
 * (interrupted, blocked, failed to write), or that does not record its plan cannot say which
 * cells failed: exit 3 with the reason, never "nothing failed".
 */
export function lastFailed(outDir: string): LastFailed {
  const runDir = latestRunDir(outDir);
  let report;
  try {
    report = readReport(runDir);
  } catch (e) {
    throw new InputError(`--last-failed: the latest run ${runDir} cannot be read: ${messageOf(e)}`);
  }
  if (report.status !== 'completed')
    throw new InputError(
      `--last-failed: the latest run ${runDir} is ${report.status}${report.reason ? ` (${report.reason})` : ''}: it does not say which cells failed; run without --last-failed`,
    );
  if (!report.plan)
    throw new InputError(
      `--last-failed: the latest run ${runDir} does not record which cells it planned (memeval ${report.memeval_version} did not), so it cannot show it ran the cells this run would; run without --last-failed`,
    );
  // a shard ran part of its plan: the cells of the other shards never ran in it, failed or not
  // (a --last-failed rerun runs part of its plan too, but the run before it judged the rest)
  const shard = report.plan.shard;
  if (shard) {
    const ran = new Set(report.results.map((r) => r.cell_id));
    const notRun = report.plan.cells.filter((id) => !ran.has(id));
    throw new InputError(
      `--last-failed: the latest run ${runDir} is shard ${shard.index}/${shard.count} of a run: it ran ${ran.size} of the ${report.plan.cells.length} cell(s) planned${notRun.length ? `, so it does not say whether ${few(notRun)} failed` : ''}; merge the shards (memeval merge) into --out, or run without --last-failed`,
    );
  }
  return {
    runDir,
    runId: report.run_id,
    cellIds: report.results.filter((r) => r.fails_run).map((r) => r.cell_id),
    planned: report.plan.cells,
  };
}

/** Up to five items and how many more. */
const few = (xs: string[]) => `${xs.slice(0, 5).join(', ')}${xs.length > 5 ? `, … (${xs.length} in all)` : ''}`;

/**
 * What differs between the cells the latest run planned and the cells this run plans (undefined:
 * the same cells). A latest run of other targets or scenarios says nothing about this run's
 * cells: neither that none failed nor which did.
 */
export function planDifference(last: LastFailed, planned: string[]): string | undefined {
  const [was, now] = [new Set(last.planned), new Set(planned)];
  const gone = [...was].filter((id) => !now.has(id)).sort();
  const added = [...now].filter((id) => !was.has(id)).sort();
  if (!gone.length && !added.length) return undefined;
  const part = (ids: Set<string>, i: number) => new Set([...ids].map((id) => id.split('/')[i]));
  const differs: string[] = [];
  for (const [i, what] of [
    [0, 'scenarios'],
    [1, 'targets'],
  ] as const) {
    const [a, b] = [part(was, i), part(now, i)];
    const onlyThen = [...a].filter((x) => !b.has(x)).sort();
    const onlyNow = [...b].filter((x) => !a.has(x)).sort();
    if (onlyThen.length) differs.push(`${what} only in the latest run: ${few(onlyThen)}`);
    if (onlyNow.length) differs.push(`${what} only in this run: ${few(onlyNow)}`);
  }
  // same scenarios and targets: other phases, repeats or agents
  if (!differs.length) {
    if (gone.length) differs.push(`cells only in the latest run: ${few(gone)}`);
    if (added.length) differs.push(`cells only in this run: ${few(added)}`);
  }
  return (
    `--last-failed: the latest run ${last.runId} (${last.runDir}) planned ${was.size} cell(s), this run plans ${now.size}, and they are not the same cells: ${differs.join('; ')}. ` +
    'It says nothing about the cells it did not plan; give the same --scenarios, --scenario, --tag, --target, --repeat and --agent as that run, or run without --last-failed'
  );
}
