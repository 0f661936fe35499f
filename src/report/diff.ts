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
import { baseKey, byBaseKey, compareCells, type ChangeClass, type CompareOptions } from './cell-compare.js';

export type { CellChange };

export interface ReportDiff {
  a: string;
  b: string;
  /** did not fail the run in a, fails it in b; or checked in a and not checked (unsupported, skipped) in b */
  regressed: CellChange[];
  /** fails the run in both, but in b in a way it did not in a (another failing verdict or assertions, another target version) */
  failing_differently: CellChange[];
  /** failed the run in a, does not in b */
  fixed: CellChange[];
  /** another verdict, same effect on the run (pass -> defended, ...), or failing in fewer of the ways it did */
  changed: CellChange[];
  added: { cell_id: string; verdict: Verdict; fails_run: boolean }[];
  removed: { cell_id: string; verdict: Verdict; fails_run: boolean }[];
  /** checked in neither: unsupported, skipped, error or invalid on both sides (failing the same way, if at all) */
  not_checked: CellChange[];
  /** the same checked verdict in both */
  unchanged: number;
  /** matched cells whose target ran another version in b: the column, and the version in a and in b */
  versions: { target: string; before: string; after: string }[];
  /** `--columns a,b` pairs that would compare another version of one target on each side (see versionHints) */
  version_hints?: string[];
}

/** Where each class of report/cell-compare.ts goes in a diff (new and removed are listed cell by cell). */
type Section = 'regressed' | 'failing_differently' | 'fixed' | 'changed' | 'not_checked';
const SECTION: Record<Exclude<ChangeClass, 'new' | 'removed' | 'unchanged'>, Section> = {
  regressed: 'regressed',
  'failing-differently': 'failing_differently',
  fixed: 'fixed',
  changed: 'changed',
  'not-checked': 'not_checked',
};

/** Compare two runs cell by cell (matched by cell id, a `--repeat` cell's repeats by the base cell's: cell-compare.ts baseKey). */
export function diffReports(a: Report, b: Report): ReportDiff {
  return diffCells(a.run_id, b.run_id, byBaseKey(a.results), byBaseKey(b.results));
}

/** The version a column ran: its cells' (reports from before cells recorded it: the report's target list). */
const versionOf = (results: CellResult[], column: string, targets: Report['targets'] = []): string | undefined =>
  results.find((c) => c.target === column)?.target_version ?? targets.find((t) => t.name === column)?.version;

/** A column's cells keyed by their base id without the column (scenario//phase), so two columns' cells match. */
function columnCells(results: CellResult[], col: string): Map<string, CellResult[]> {
  return byBaseKey(
    results.filter((c) => c.target === col),
    (c) => baseKey(c).replace(`/${col}/`, '//'),
  );
}

/**
 * Cells of column `colA` against column `colB`, matched by scenario and phase (and agent), named
 * by b's ids. The two columns are two versions compared on purpose: a failure the same way in
 * both is unchanged here (the gate, matching one column to itself, still tells versions apart).
 */
function diffColumnCells(aName: string, a: CellResult[], colA: string, bName: string, b: CellResult[], colB: string) {
  return diffCells(aName, bName, columnCells(a, colA), columnCells(b, colB), { ignoreVersion: true });
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
        failing_differently: d.failing_differently,
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
      ...(v.failing_differently ?? []).map((c) => `  failing differently ${c.cell_id}: ${c.before} -> ${c.after}`),
      ...v.fixed.map((c) => `  fixed ${c.cell_id}: ${c.before} -> ${c.after}`),
      ...v.changed.map((c) => `  changed ${c.cell_id}: ${c.before} -> ${c.after}`),
      ...v.not_checked.map((c) => `  not checked ${c.cell_id}: ${c.before} -> ${c.after}`),
    ];
    return [
      `${v.target} ${v.from.version} (${v.from.column}) -> ${v.to.version} (${v.to.column}): ${v.regressed.length} regressed, ${(v.failing_differently ?? []).length} failing differently, ${v.fixed.length} fixed, ${v.changed.length} changed, ${v.not_checked.length} not checked, ${v.unchanged} unchanged`,
      ...rows,
    ];
  });
}

/** Both sides' cells by the key they match on, each pair decided by report/cell-compare.ts compareCells. */
function diffCells(
  aName: string,
  bName: string,
  before: Map<string, CellResult[]>,
  after: Map<string, CellResult[]>,
  o: CompareOptions = {},
): ReportDiff {
  const d: ReportDiff = {
    a: aName,
    b: bName,
    regressed: [],
    failing_differently: [],
    fixed: [],
    changed: [],
    added: [],
    removed: [],
    not_checked: [],
    unchanged: 0,
    versions: [],
  };
  const versions = new Map<string, ReportDiff['versions'][number]>();
  const listed = (cs: CellResult[]) =>
    cs.map((c) => ({ cell_id: c.cell_id, verdict: c.verdict, fails_run: c.fails_run }));
  for (const [key, r] of after) {
    const p = before.get(key);
    if (!p) {
      d.added.push(...listed(r));
      continue;
    }
    const [vp, vr] = [p.find((c) => c.target_version), r.find((c) => c.target_version)];
    if (vp && vr && vp.target_version !== vr.target_version)
      versions.set(vr.target, { target: vr.target, before: vp.target_version!, after: vr.target_version! });
    const c = compareCells(p, r, o);
    if (c.kind === 'unchanged') d.unchanged++;
    else if (c.kind !== 'new' && c.kind !== 'removed')
      d[SECTION[c.kind]].push({
        cell_id: c.cell_id,
        ...(c.before_id ? { before_id: c.before_id } : {}),
        before: c.before!,
        after: c.after!,
        reason: c.reason,
        ...(c.kind === 'not-checked' && r.some((x) => x.fails_run) ? { fails_run: true } : {}),
      });
  }
  for (const [key, p] of before) if (!after.has(key)) d.removed.push(...listed(p));
  d.versions = [...versions.values()];
  return d;
}

/**
 * Why a diff fails (exit 1; none: exit 0): a cell regressed or fails differently (what a gate with
 * the earlier run as baseline counts), a new cell fails the run, or a cell checked in the earlier
 * run has no result in the later one (the later run says nothing about it).
 */
export function diffFailures(d: ReportDiff): string[] {
  const newFailing = d.added.filter((c) => c.fails_run).length;
  const removedChecked = d.removed.filter((c) => isChecked(c.verdict)).length;
  return [
    ...(d.regressed.length ? [`${d.regressed.length} regressed`] : []),
    ...(d.failing_differently.length ? [`${d.failing_differently.length} failing differently`] : []),
    ...(newFailing ? [`${newFailing} new cell(s) fail the run`] : []),
    ...(removedChecked
      ? [
          `${removedChecked} cell(s) checked in ${d.a} have no result in ${d.b}, which says nothing about them (compare runs of the same cells)`,
        ]
      : []),
  ];
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

/** A change's cell, with the cell it was matched to where that has another id (a repeat against its base cell). */
const named = (c: CellChange) => (c.before_id ? `${c.cell_id} (against ${c.before_id})` : c.cell_id);

/**
 * The cells not checked in either run that say nothing about a change: the same `unsupported` or
 * `skipped` on both sides, failing neither run. `diff` and `view --compare` fold them into one
 * count (by verdict) instead of a line each; every other not-checked cell (one that fails the
 * run, or whose verdict moved) stays listed.
 */
export function foldNotChecked(list: CellChange[]): { listed: CellChange[]; folded: Record<string, number> } {
  const listed: CellChange[] = [];
  const folded: Record<string, number> = {};
  for (const c of list)
    if (c.before === c.after && (c.after === 'unsupported' || c.after === 'skipped') && !c.fails_run)
      folded[`${c.before} -> ${c.after}`] = (folded[`${c.before} -> ${c.after}`] ?? 0) + 1;
    else listed.push(c);
  return { listed, folded };
}

/** "30 cell(s) not checked in either run (unsupported -> unsupported 28, skipped -> skipped 2)", or nothing. */
export function foldedText(folded: Record<string, number>, arrow = '->'): string | undefined {
  const n = Object.values(folded).reduce((x, y) => x + y, 0);
  if (!n) return undefined;
  const by = Object.entries(folded).map(([k, v]) => `${k.replace('->', arrow)} ${v}`);
  return `${n} cell(s) not checked in either run (${by.join(', ')})`;
}

export function formatDiff(d: ReportDiff): string {
  const { listed, folded } = foldNotChecked(d.not_checked);
  const changes =
    d.regressed.length +
    d.failing_differently.length +
    d.fixed.length +
    d.changed.length +
    d.added.length +
    d.removed.length +
    listed.length +
    d.versions.length;
  // two runs alike lead with that, not with the cells neither run checked
  const lines = changes
    ? [
        `${d.a} -> ${d.b}: ${d.regressed.length} regressed, ${d.failing_differently.length} failing differently, ${d.fixed.length} fixed, ${d.changed.length} changed, ${d.added.length} new, ${d.removed.length} removed, ${d.unchanged} unchanged, ${d.not_checked.length} not checked`,
      ]
    : [
        `${d.a} -> ${d.b}: nothing changed: ${d.unchanged} unchanged, ${d.not_checked.length} not checked in either run`,
      ];
  const section = (title: string, rows: string[]) =>
    rows.length && lines.push(`${title}:`, ...rows.map((r) => `  ${r}`));
  section(
    'versions',
    d.versions.map((v) => `${v.target}: ${v.before} -> ${v.after}`),
  );
  section(
    'regressed',
    d.regressed.map((c) => `${named(c)}: ${c.before} -> ${c.after} (${c.reason})`),
  );
  section(
    'failing differently',
    d.failing_differently.map((c) => `${named(c)}: ${c.before} -> ${c.after} (${c.reason})`),
  );
  section(
    'fixed',
    d.fixed.map((c) => `${named(c)}: ${c.before} -> ${c.after}`),
  );
  section(
    'changed',
    d.changed.map((c) => `${named(c)}: ${c.before} -> ${c.after}`),
  );
  section(
    'not checked',
    listed.map((c) => `${named(c)}: ${c.before} -> ${c.after} (${c.reason})`),
  );
  section(
    'new',
    d.added.map((c) => `${c.cell_id}: ${c.verdict}${c.fails_run ? ' (fails the run)' : ''}`),
  );
  section(
    'removed',
    d.removed.map((c) => `${c.cell_id}: was ${c.verdict}`),
  );
  const foldedLine = foldedText(folded);
  if (foldedLine) lines.push(`${foldedLine}: not listed; --json lists them`);
  for (const pair of d.version_hints ?? [])
    lines.push(`another version of one target on each side: compare them with --columns ${pair}`);
  const failures = diffFailures(d);
  if (failures.length) lines.push(`exit 1: ${failures.join('; ')}`);
  return lines.join('\n');
}
