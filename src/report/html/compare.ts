import type { Report, Verdict } from '../../core/results.js';
import { foldNotChecked, type ReportDiff } from '../diff.js';
import { InputError } from '../../util/errors.js';
import { pageModel } from './model.js';

/** How a cell differs between the earlier run and this one (report/diff.ts's sections). */
export const CHANGE_KINDS = [
  'regressed',
  'failing differently',
  'fixed',
  'changed',
  'not checked',
  'new',
  'removed',
] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

export interface CompareEntry {
  cell_id: string;
  /** the earlier run's cell, where its id differs (a `--repeat` cell against its base cell) */
  before_id?: string;
  kind: ChangeKind;
  scenario: string;
  column: string;
  label: string;
  /** the verdict in the earlier run (absent: a new cell) */
  before?: Verdict;
  /** the verdict in this run (absent: a removed cell) */
  after?: Verdict;
  reason?: string;
}

/** The diff of two runs as the page draws it: a matrix of the changed cells only. */
export interface CompareModel {
  earlier: { run_id: string; started_at: string };
  later: { run_id: string; started_at: string };
  counts: Record<ChangeKind, number>;
  /** cells in both runs with the same checked verdict */
  unchanged: number;
  /** cells checked in neither run, the same unsupported or skipped on both sides: counted by verdict, not drawn */
  folded: Record<string, number>;
  /** cells in both runs */
  common: number;
  columns: string[];
  entries: CompareEntry[];
}

/** Cells both runs have: what the comparison can speak about. */
export const commonCells = (d: ReportDiff): number =>
  d.regressed.length +
  d.failing_differently.length +
  d.fixed.length +
  d.changed.length +
  d.not_checked.length +
  d.unchanged;

/**
 * Refuse a comparison that could only say "no changes" by having nothing to compare: two runs
 * with no cell in common (other scenarios, targets or agents) are not the same matrix.
 */
export function assertComparable(a: Report, b: Report, d: ReportDiff): void {
  if (commonCells(d) > 0) return;
  const cols = (r: Report) => [...new Set(r.results.map((c) => c.target))].join(', ') || 'none';
  throw new InputError(
    `--compare: runs ${a.run_id} (${a.results.length} cells; targets ${cols(a)}) and ${b.run_id} (${b.results.length} cells; targets ${cols(b)}) have no cell in common, so nothing can be compared; ` +
      'compare runs of the same scenarios and targets (for two versions of one target: memeval diff --columns a,b)',
  );
}

/** The changed cells of `d` (a = the earlier run, b = this one), placed in the columns the page uses. */
export function compareModel(a: Report, b: Report, d: ReportDiff): CompareModel {
  const [ma, mb] = [pageModel(a), pageModel(b)];
  const byId = new Map([...a.results, ...b.results].map((r) => [r.cell_id, r]));
  const place = (id: string) => mb.cells[id] ?? ma.cells[id];
  const entries: CompareEntry[] = [];
  const notChecked = foldNotChecked(d.not_checked);
  const add = (id: string, kind: ChangeKind, before?: Verdict, after?: Verdict, reason?: string, beforeId?: string) => {
    const p = place(id);
    entries.push({
      cell_id: id,
      ...(beforeId ? { before_id: beforeId } : {}),
      kind,
      scenario: byId.get(id)?.scenario ?? id.split('/')[0],
      column: p?.column ?? id.split('/')[1],
      label: p?.label ?? id,
      ...(before ? { before } : {}),
      ...(after ? { after } : {}),
      ...(reason ? { reason } : {}),
    });
  };
  for (const [kind, list] of [
    ['regressed', d.regressed],
    ['failing differently', d.failing_differently],
    ['fixed', d.fixed],
    ['changed', d.changed],
    ['not checked', notChecked.listed],
  ] as const)
    for (const c of list) add(c.cell_id, kind, c.before, c.after, c.reason, c.before_id);
  for (const c of d.added) add(c.cell_id, 'new', undefined, c.verdict);
  for (const c of d.removed) add(c.cell_id, 'removed', c.verdict, undefined);
  const keys = [...mb.columns, ...ma.columns].map((c) => c.key);
  const columns = [...new Set(keys)].filter((k) => entries.some((e) => e.column === k));
  const counts = Object.fromEntries(CHANGE_KINDS.map((k) => [k, entries.filter((e) => e.kind === k).length])) as Record<
    ChangeKind,
    number
  >;
  return {
    earlier: { run_id: a.run_id, started_at: a.started_at },
    later: { run_id: b.run_id, started_at: b.started_at },
    counts,
    unchanged: d.unchanged,
    folded: notChecked.folded,
    common: commonCells(d),
    columns,
    entries,
  };
}
