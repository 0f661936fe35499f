import { isChecked, type CellResult } from '../core/results.js';

/** One attempt of a cell as the report keeps it in `attempts`. */
export type Attempt = NonNullable<CellResult['attempts']>[number];

const attemptOf = (r: CellResult): Attempt => ({
  verdict: r.verdict,
  reason: r.reason,
  fails_run: r.fails_run,
  cell_dir: r.cell_dir,
  duration_ms: r.duration_ms,
});

/** A retry that ran while the run was being stopped proves nothing either way: it is skipped. */
const interrupted = (r: CellResult): CellResult => ({
  ...r,
  verdict: 'skipped',
  reason: `retry interrupted before it finished (${r.verdict}: ${r.reason})`,
  fails_run: false,
});

/**
 * The cell a run reports from its attempts (the first is the original run). A retry that passed
 * (checked and not failing the run; an error never passes) makes the cell `flaky`, from that
 * attempt's evidence; it fails the run only when `failOnFlaky`. Otherwise the cell stays as its
 * first attempt failed.
 */
export function combineAttempts(results: CellResult[], failOnFlaky: boolean): CellResult {
  const [first] = results;
  if (results.length === 1) return first;
  const attempts = results.map(attemptOf);
  const passedAt = results.findIndex((r) => !r.fails_run && isChecked(r.verdict));
  if (passedAt < 1) return { ...first, attempts };
  const passed = results[passedAt];
  return {
    ...passed,
    verdict: 'flaky',
    reason: `passed (${passed.verdict}) on attempt ${passedAt + 1} of ${results.length} after failing: ${first.verdict}: ${first.reason}`,
    fails_run: failOnFlaky,
    attempts,
  };
}

/**
 * Run a cell, and rerun it while it fails the run, up to `retries` more times. A retry started
 * or finished after the run was interrupted is kept as skipped, and no further one starts.
 */
export async function runWithRetries(
  runAttempt: (attempt: number) => Promise<CellResult>,
  retries: number,
  failOnFlaky: boolean,
  signal?: AbortSignal,
): Promise<CellResult> {
  const results = [await runAttempt(0)];
  for (let k = 1; k <= retries && results[k - 1].fails_run && !signal?.aborted; k++) {
    const r = await runAttempt(k);
    results.push(signal?.aborted ? interrupted(r) : r);
  }
  return combineAttempts(results, failOnFlaky);
}
