import { isChecked, type CellResult, type Report, type Verdict } from '../core/results.js';

export interface CellChange {
  cell_id: string;
  before: Verdict;
  after: Verdict;
  reason: string;
}

export interface ReportDiff {
  a: string;
  b: string;
  /** did not fail the run in a, fails it in b; or checked in a and not checked (unsupported, skipped) in b */
  regressed: CellChange[];
  /** failed the run in a, does not in b */
  fixed: CellChange[];
  /** another verdict, same effect on the run (pass -> defended, fail -> error, ...) */
  changed: CellChange[];
  added: { cell_id: string; verdict: Verdict; fails_run: boolean }[];
  removed: { cell_id: string; verdict: Verdict; fails_run: boolean }[];
  /** checked in neither, or failing in both: b's verdict is unsupported, skipped, error or invalid */
  not_checked: CellChange[];
  /** the same checked verdict in both */
  unchanged: number;
}

const byId = (rs: CellResult[]) => new Map(rs.map((r) => [r.cell_id, r]));

/** Compare two runs cell by cell (matched by cell id). */
export function diffReports(a: Report, b: Report): ReportDiff {
  const before = byId(a.results);
  const after = byId(b.results);
  const d: ReportDiff = {
    a: a.run_id,
    b: b.run_id,
    regressed: [],
    fixed: [],
    changed: [],
    added: [],
    removed: [],
    not_checked: [],
    unchanged: 0,
  };
  for (const [id, r] of after) {
    const p = before.get(id);
    if (!p) {
      d.added.push({ cell_id: id, verdict: r.verdict, fails_run: r.fails_run });
      continue;
    }
    const change = { cell_id: id, before: p.verdict, after: r.verdict, reason: r.reason };
    // a cell that checked nothing in b is never fixed or unchanged: b says nothing about it
    if (!p.fails_run && r.fails_run) d.regressed.push(change);
    else if (isChecked(p.verdict) && !isChecked(r.verdict) && !r.fails_run)
      d.regressed.push({ ...change, reason: `no longer checked: ${r.reason}` });
    else if (!isChecked(r.verdict)) d.not_checked.push(change);
    else if (p.fails_run && !r.fails_run) d.fixed.push(change);
    else if (p.verdict !== r.verdict) d.changed.push(change);
    else d.unchanged++;
  }
  for (const [id, p] of before)
    if (!after.has(id)) d.removed.push({ cell_id: id, verdict: p.verdict, fails_run: p.fails_run });
  return d;
}

export function formatDiff(d: ReportDiff): string {
  const lines = [
    `${d.a} -> ${d.b}: ${d.regressed.length} regressed, ${d.fixed.length} fixed, ${d.changed.length} changed, ${d.added.length} new, ${d.removed.length} removed, ${d.unchanged} unchanged, ${d.not_checked.length} not checked`,
  ];
  const section = (title: string, rows: string[]) =>
    rows.length && lines.push(`${title}:`, ...rows.map((r) => `  ${r}`));
  section(
    'regressed',
    d.regressed.map((c) => `${c.cell_id}: ${c.before} -> ${c.after} (${c.reason})`),
  );
  section(
    'fixed',
    d.fixed.map((c) => `${c.cell_id}: ${c.before} -> ${c.after}`),
  );
  section(
    'changed',
    d.changed.map((c) => `${c.cell_id}: ${c.before} -> ${c.after}`),
  );
  section(
    'not checked',
    d.not_checked.map((c) => `${c.cell_id}: ${c.before} -> ${c.after} (${c.reason})`),
  );
  section(
    'new',
    d.added.map((c) => `${c.cell_id}: ${c.verdict}${c.fails_run ? ' (fails the run)' : ''}`),
  );
  section(
    'removed',
    d.removed.map((c) => `${c.cell_id}: was ${c.verdict}`),
  );
  return lines.join('\n');
}
