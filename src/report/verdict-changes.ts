import type { ChalkInstance } from 'chalk';
import type { CellResult, Verdict } from '../core/results.js';

export interface VerdictChange {
  cell_id: string;
  before: Verdict;
  after: Verdict;
  fails_run: boolean;
  /** the assertions whose outcome is not what it was */
  assertions: { name: string; before: string; after: string }[];
}

/**
 * What judging a run again changed, cell by cell (matched by id): each cell whose verdict or any
 * assertion's outcome differs, with those assertions.
 */
export function verdictChanges(before: CellResult[], after: CellResult[]): VerdictChange[] {
  const old = new Map(before.map((r) => [r.cell_id, r]));
  return after.flatMap((r) => {
    const was = old.get(r.cell_id);
    if (!was) return [];
    const outcomes = new Map(was.assertions.map((a) => [a.name, a.outcome]));
    const assertions = r.assertions.flatMap((a) => {
      const prev = outcomes.get(a.name) ?? 'not judged';
      return prev === a.outcome ? [] : [{ name: a.name, before: prev, after: a.outcome }];
    });
    return was.verdict === r.verdict && !assertions.length
      ? []
      : [{ cell_id: r.cell_id, before: was.verdict, after: r.verdict, fails_run: r.fails_run, assertions }];
  });
}

/** The changes as console lines: `cell: old -> new`, then each changed assertion; or that none changed. */
export function formatVerdictChanges(changes: VerdictChange[], c: ChalkInstance): string[] {
  const moved = changes.filter((x) => x.before !== x.after);
  const lines = [c.bold(moved.length ? `${moved.length} verdict(s) changed:` : 'no verdict changed')];
  for (const x of changes) {
    const col = x.fails_run ? c.red : c.green;
    lines.push(
      x.before === x.after
        ? `  ${x.cell_id}: ${x.after} (verdict unchanged)`
        : `  ${x.cell_id}: ${x.before} -> ${col(x.after)}`,
      ...x.assertions.map((a) => c.dim(`    ${a.name}: ${a.before} -> ${a.after}`)),
    );
  }
  return lines;
}
