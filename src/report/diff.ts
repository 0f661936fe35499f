import {
  declaredTarget,
  isChecked,
  type CellChange,
  type CellResult,
  type Report,
  type VersionChange,
  type Verdict,
} from '../core/results.js';
import { InputError } from '../util/errors.js';
import { compareVersions } from '../util/versions.js';

export type { CellChange };

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
  /** matched cells whose target ran another version in b: the column, and the version in a and in b */
  versions: { target: string; before: string; after: string }[];
  /** `--columns a,b` pairs that would compare another version of one target on each side (see versionHints) */
  version_hints?: string[];
}

const byId = (rs: CellResult[]) => new Map(rs.map((r) => [r.cell_id, r]));

/** Compare two runs cell by cell (matched by cell id). */
export function diffReports(a: Report, b: Report): ReportDiff {
  return diffCells(a.run_id, b.run_id, byId(a.results), byId(b.results));
}

/** The version a column ran: its cells' (reports from before cells recorded it: the report's target list). */
const versionOf = (results: CellResult[], column: string, targets: Report['targets'] = []): string | undefined =>
  results.find((c) => c.target === column)?.target_version ?? targets.find((t) => t.name === column)?.version;

/** A column's cells keyed by their id without the column (scenario//phase), so two columns' cells match. */
function columnCells(results: CellResult[], col: string): Map<string, CellResult> {
  return new Map(results.filter((c) => c.target === col).map((c) => [c.cell_id.replace(`/${col}/`, '//'), c]));
}

/** Cells of column `colA` against column `colB`, matched by scenario and phase (and agent repeat), named by b's ids. */
function diffColumnCells(aName: string, a: CellResult[], colA: string, bName: string, b: CellResult[], colB: string) {
  const before = columnCells(a, colA);
  const after = columnCells(b, colB);
  return diffCells(aName, bName, before, after, (k) => after.get(k)?.cell_id ?? before.get(k)!.cell_id);
}

/**
 * Compare column `colA` of run a with column `colB` of run b (the same run for two versions
 * side by side): cells matched by scenario and phase, named by b's cell ids. This is how two
 * versions of one target are compared, in one run or across two.
 */
export function diffColumns(a: Report, colA: string, b: Report, colB: string): ReportDiff {
  for (const [r, col, which] of [
    [a, colA, 'the first name'],
    [b, colB, 'the second name'],
  ] as const)
    if (!r.results.some((c) => c.target === col)) {
      const have = [...new Set(r.results.map((c) => c.target))];
      throw new InputError(
        `--columns: run ${r.run_id} has no column "${col}" (${which}); its columns: ${have.join(', ') || 'none'}`,
      );
    }
  const d = diffColumnCells(`${a.run_id} ${colA}`, a.results, colA, `${b.run_id} ${colB}`, b.results, colB);
  const [va, vb] = [versionOf(a.results, colA, a.targets), versionOf(b.results, colB, b.targets)];
  d.versions = va && vb && va !== vb ? [{ target: declaredTarget(colB), before: va, after: vb }] : [];
  return d;
}

/** Each column's version, where a run ran several versions of one declared target (else undefined). */
export function columnVersions(results: CellResult[], columns: string[]): Record<string, string> | undefined {
  const several = columns.filter((c) => columns.filter((x) => declaredTarget(x) === declaredTarget(c)).length > 1);
  const out = Object.fromEntries(several.flatMap((c) => (versionOf(results, c) ? [[c, versionOf(results, c)!]] : [])));
  return Object.keys(out).length ? out : undefined;
}

/**
 * Each declared target a run ran at several versions: its columns in version order, each compared
 * with the one before (older → newer), so an upgrade that regressed hygiene shows as regressed.
 */
export function versionChanges(results: CellResult[], versions: Record<string, string>): VersionChange[] {
  const byTarget = new Map<string, string[]>();
  for (const col of Object.keys(versions))
    byTarget.set(declaredTarget(col), [...(byTarget.get(declaredTarget(col)) ?? []), col]);
  return [...byTarget].flatMap(([target, cols]) => {
    const sorted = [...cols].sort((x, y) => compareVersions(versions[x], versions[y]));
    return sorted.slice(1).map((to, i) => {
      const from = sorted[i];
      const d = diffColumnCells(from, results, from, to, results, to);
      return {
        target,
        from: { column: from, version: versions[from] },
        to: { column: to, version: versions[to] },
        regressed: d.regressed,
        fixed: d.fixed,
        changed: d.changed,
        not_checked: d.not_checked,
        unchanged: d.unchanged,
      };
    });
  });
}

/** The matrix's lines on versions: what changed from each version of a target to the next. */
export function formatVersionChanges(changes: VersionChange[]): string[] {
  return changes.flatMap((v) => {
    const rows = [
      ...v.regressed.map((c) => `  regressed ${c.cell_id}: ${c.before} -> ${c.after}`),
      ...v.fixed.map((c) => `  fixed ${c.cell_id}: ${c.before} -> ${c.after}`),
      ...v.changed.map((c) => `  changed ${c.cell_id}: ${c.before} -> ${c.after}`),
      ...v.not_checked.map((c) => `  not checked ${c.cell_id}: ${c.before} -> ${c.after}`),
    ];
    return [
      `${v.target} ${v.from.version} (${v.from.column}) -> ${v.to.version} (${v.to.column}): ${v.regressed.length} regressed, ${v.fixed.length} fixed, ${v.changed.length} changed, ${v.not_checked.length} not checked, ${v.unchanged} unchanged`,
      ...rows,
    ];
  });
}

function diffCells(
  aName: string,
  bName: string,
  before: Map<string, CellResult>,
  after: Map<string, CellResult>,
  idOf: (key: string) => string = (k) => k,
): ReportDiff {
  const d: ReportDiff = {
    a: aName,
    b: bName,
    regressed: [],
    fixed: [],
    changed: [],
    added: [],
    removed: [],
    not_checked: [],
    unchanged: 0,
    versions: [],
  };
  const versions = new Map<string, ReportDiff['versions'][number]>();
  for (const [key, r] of after) {
    const id = idOf(key);
    const p = before.get(key);
    if (!p) {
      d.added.push({ cell_id: id, verdict: r.verdict, fails_run: r.fails_run });
      continue;
    }
    if (p.target_version && r.target_version && p.target_version !== r.target_version)
      versions.set(r.target, { target: r.target, before: p.target_version, after: r.target_version });
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
  for (const [key, p] of before)
    if (!after.has(key)) d.removed.push({ cell_id: idOf(key), verdict: p.verdict, fails_run: p.fails_run });
  d.versions = [...versions.values()];
  return d;
}

/**
 * Pairs of columns, one per side, that are two versions of one declared target where at least
 * one of them is missing on the other side: the `--columns` pairs that compare them (cell ids
 * hold the version, so plain matching never does).
 */
export function versionHints(a: Report, b: Report): string[] {
  const cols = (r: Report) => [...new Set(r.results.map((c) => c.target))];
  const [ca, cb] = [cols(a), cols(b)];
  return ca.flatMap((x) =>
    cb
      .filter((y) => y !== x && declaredTarget(y) === declaredTarget(x) && (!cb.includes(x) || !ca.includes(y)))
      .map((y) => `${x},${y}`),
  );
}

export function formatDiff(d: ReportDiff): string {
  const lines = [
    `${d.a} -> ${d.b}: ${d.regressed.length} regressed, ${d.fixed.length} fixed, ${d.changed.length} changed, ${d.added.length} new, ${d.removed.length} removed, ${d.unchanged} unchanged, ${d.not_checked.length} not checked`,
  ];
  const section = (title: string, rows: string[]) =>
    rows.length && lines.push(`${title}:`, ...rows.map((r) => `  ${r}`));
  section(
    'versions',
    d.versions.map((v) => `${v.target}: ${v.before} -> ${v.after}`),
  );
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
  for (const pair of d.version_hints ?? [])
    lines.push(`another version of one target on each side: compare them with --columns ${pair}`);
  return lines.join('\n');
}
