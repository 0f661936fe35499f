import { isChecked, type CellResult, type Verdict } from '../core/results.js';

/**
 * The one comparison of a cell before and after: `diff`, `view --compare`, the matrix's
 * version changes and the gate's baseline all ask it, so that none of them calls "unchanged"
 * what another calls a regression.
 */

/**
 * How a cell changed. `failing-differently`: it fails the run in both, but now in a way it did not
 * (another failing verdict, other failing assertions, or another version of its target), which
 * a baseline does not accept. `changed`: another verdict with the same effect on the run
 * (pass -> defended), or fewer of the ways it failed. `not-checked`: checked in neither.
 */
export const CHANGE_CLASSES = [
  'regressed',
  'failing-differently',
  'fixed',
  'changed',
  'unchanged',
  'not-checked',
  'new',
  'removed',
] as const;
export type ChangeClass = (typeof CHANGE_CLASSES)[number];

export interface CellComparison {
  kind: ChangeClass;
  /** the cell that names the change: after's deciding cell (before's for a removed one) */
  cell_id: string;
  /** before's deciding cell, where its id is not cell_id (a repeat against its base cell) */
  before_id?: string;
  before?: Verdict;
  after?: Verdict;
  reason: string;
  /**
   * Every way `after` fails the run, `before` failed too, at the same version of its target:
   * what a baseline accepts as a known failure. False when `after` does not fail the run.
   */
  known: boolean;
}

export interface CompareOptions {
  /** what `before` is called in reasons (the gate: "baseline") */
  label?: string;
  /** before's run id, for "no longer checked (pass in baseline <id>)" */
  runId?: string;
  /** two columns compared on purpose as two versions (diff --columns, version changes): their versions differ by design */
  ignoreVersion?: boolean;
}

/**
 * The id a cell is matched by across runs: its id without the repeat (`x-2` of `--repeat`
 * matches `x`; `…/real-model/codex-1` matches `…/real-model/codex-3`), so a run with
 * `--repeat` is compared with one without, repeat by repeat against the base cell.
 */
export function baseKey(r: Pick<CellResult, 'cell_id' | 'repeat' | 'phase'>): string {
  if (r.repeat !== undefined && r.cell_id.endsWith(`-${r.repeat}`)) return r.cell_id.slice(0, -`-${r.repeat}`.length);
  return r.phase === 'real-model' ? r.cell_id.replace(/-\d+$/, '') : r.cell_id;
}

/** The cells of a run by baseKey, in id order within each. */
export function byBaseKey(
  results: CellResult[],
  keyOf: (r: CellResult) => string = baseKey,
): Map<string, CellResult[]> {
  const groups = new Map<string, CellResult[]>();
  for (const r of [...results].sort((a, b) => (a.cell_id < b.cell_id ? -1 : a.cell_id > b.cell_id ? 1 : 0)))
    groups.set(keyOf(r), [...(groups.get(keyOf(r)) ?? []), r]);
  return groups;
}

/** The assertions a cell fails on (outcome fail or error; warn-level ones never decide), sorted. */
export function failingAssertions(r: CellResult): string[] {
  return [
    ...new Set(
      r.assertions
        .filter((j) => j.level !== 'warn' && (j.outcome === 'fail' || j.outcome === 'error'))
        .map((j) => j.name),
    ),
  ].sort();
}

/** How a cell fails: its verdict and the assertions that decided it. */
export const failureOf = (r: CellResult): string => how(r.verdict, failingAssertions(r));
export const how = (verdict: string, assertions: string[]): string =>
  assertions.length ? `${verdict} on [${assertions.join(', ')}]` : `${verdict} with no failing assertion`;

/** The version a group ran (its first cell that recorded one): reports from before it say nothing. */
const versionOf = (cells: CellResult[]) => cells.find((c) => c.target_version)?.target_version;

/** The cell that speaks for a group: its first failing cell, else its first not checked, else its first. */
const decidingCell = (cells: CellResult[]) =>
  cells.find((c) => c.fails_run) ?? cells.find((c) => !isChecked(c.verdict)) ?? cells[0];

/** "2 of 3 repeats fail the run: " for a group of repeats, nothing for one cell. */
function repeatsNote(cells: CellResult[], pick: (c: CellResult) => boolean, what: string): string {
  return cells.length > 1 ? `${cells.filter(pick).length} of ${cells.length} repeats ${what}: ` : '';
}

/**
 * Compare a cell before and after: each side one cell, or the repeats of one cell (matched by
 * baseKey). With repeats, the side fails the run when any repeat does, is checked only when
 * every repeat is, and fails in every way one of its repeats fails; so one failing repeat where
 * the base cell passed is a regression.
 */
export function compareCells(before: CellResult[], after: CellResult[], o: CompareOptions = {}): CellComparison {
  const [b, a] = [before.length ? decidingCell(before) : undefined, after.length ? decidingCell(after) : undefined];
  if (!a && !b) throw new Error('compareCells: nothing to compare');
  const ids = {
    cell_id: (a ?? b)!.cell_id,
    ...(a && b && a.cell_id !== b.cell_id ? { before_id: b.cell_id } : {}),
    ...(b ? { before: b.verdict } : {}),
    ...(a ? { after: a.verdict } : {}),
  };
  if (!b)
    return {
      ...ids,
      kind: 'new',
      reason: a!.fails_run ? `new, ${repeatsNote(after, (c) => c.fails_run, 'fail the run')}${a!.reason}` : 'new',
      known: false,
    };
  if (!a)
    return {
      ...ids,
      kind: 'removed',
      reason: before.some((c) => isChecked(c.verdict)) ? 'checked before, no result now' : 'no result now',
      known: false,
    };
  const fails = (cs: CellResult[]) => cs.some((c) => c.fails_run);
  const allChecked = (cs: CellResult[]) => cs.every((c) => isChecked(c.verdict));
  const ways = (cs: CellResult[]) => [...new Set(cs.filter((c) => c.fails_run).map(failureOf))].sort();
  const [vb, va] = [versionOf(before), versionOf(after)];
  const otherVersion = !o.ignoreVersion && vb !== undefined && va !== undefined && vb !== va;
  const label = o.label ? `${o.label} ` : '';
  const result = (kind: ChangeClass, reason: string, known = false): CellComparison => ({
    ...ids,
    kind,
    reason,
    known,
  });

  if (fails(after)) {
    const now = ways(after);
    const note = repeatsNote(after, (c) => c.fails_run, 'fail the run');
    if (!fails(before)) return result('regressed', `${note}${a.reason}`);
    const was = ways(before);
    const newWays = now.filter((w) => !was.includes(w));
    if (newWays.length)
      return result('failing-differently', `${label}failed with ${was.join(' or ')}, now ${note}${now.join(' or ')}`);
    if (otherVersion)
      return result(
        'failing-differently',
        `${label}failed the same way at ${a.target} ${vb}, now at ${va}: a failure recorded for another version is not known`,
      );
    if (!allChecked(before) || !allChecked(after)) return result('not-checked', a.reason, true);
    const same = now.length === was.length && sameVerdicts(before, after);
    return result(
      same ? 'unchanged' : 'changed',
      same ? a.reason : `fails only in ways it failed ${o.label ? `in ${o.label}` : 'before'}: ${now.join(' or ')}`,
      true,
    );
  }
  if (!allChecked(after)) {
    if (before.some((c) => isChecked(c.verdict))) {
      const where = o.label
        ? ` (${b.verdict} in ${o.label}${o.runId ? ` ${o.runId}` : ''}${otherVersion ? ` at ${a.target} ${vb}, this run ran ${va}` : ''})`
        : '';
      return result(
        'regressed',
        `${repeatsNote(after, (c) => !isChecked(c.verdict), 'not checked')}no longer checked${where}: ${a.reason}`,
      );
    }
    return result('not-checked', a.reason);
  }
  if (fails(before)) return result('fixed', a.reason);
  return sameVerdicts(before, after) ? result('unchanged', a.reason) : result('changed', a.reason);
}

/** The same verdicts on both sides (as sets: three passing repeats against one pass are the same). */
function sameVerdicts(before: CellResult[], after: CellResult[]): boolean {
  const set = (cs: CellResult[]) => [...new Set(cs.map((c) => c.verdict))].sort().join(',');
  return set(before) === set(after);
}
