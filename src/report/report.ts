import { randomBytes } from 'node:crypto';
import {
  EXIT,
  isChecked,
  isPassed,
  REPORT_SCHEMA_VERSION,
  type CellResult,
  type Report,
  type Summary,
  type TargetInfo,
  type Verdict,
} from '../core/results.js';

export { REPORT_SCHEMA_VERSION, type Report, type Summary, type TargetInfo };

export function newRunId(now = new Date()): string {
  return `${now
    .toISOString()
    .replace(/[:.]/g, '-')
    .replace(/-\d{3}Z$/, 'Z')}-${randomBytes(3).toString('hex')}`;
}

/**
 * Totals and the exit code the CLI must use: an interrupted run exits 130, whatever its cells say.
 * Unsupported and skipped cells are counted apart, never as passed; a run in which no cell was
 * checked exits 1 (see nothingChecked).
 */
export function summarize(results: CellResult[], interrupted: boolean): Summary {
  const by: Partial<Record<Verdict, number>> = {};
  for (const r of results) by[r.verdict] = (by[r.verdict] ?? 0) + 1;
  const failed = results.filter((r) => r.fails_run).length;
  const checked = results.filter((r) => isChecked(r.verdict)).length;
  return {
    cells: results.length,
    passed: results.filter(isPassed).length,
    failed,
    unsupported: by.unsupported ?? 0,
    skipped: by.skipped ?? 0,
    flaky: by.flaky ?? 0,
    checked,
    by_verdict: by,
    exit_code: interrupted ? EXIT.interrupted : failed > 0 || checked === 0 ? EXIT.failed : EXIT.ok,
  };
}

/** Why a run proves nothing: no cell has a checked verdict (undefined when some cell has one). */
export function nothingChecked(results: Pick<CellResult, 'verdict'>[]): string | undefined {
  if (results.some((r) => isChecked(r.verdict))) return undefined;
  if (!results.length) return 'nothing was checked: the run has no cells';
  const by = new Map<string, number>();
  for (const r of results) by.set(r.verdict, (by.get(r.verdict) ?? 0) + 1);
  return `nothing was checked: none of the ${results.length} cell(s) has a checked verdict (${[...by].map(([v, n]) => `${n} ${v}`).join(', ')})`;
}

/**
 * The closing line CI logs are read for: `N passed, N failed`, then the cells that are neither
 * (`, N flaky`, `, N unsupported`, `, N skipped`) when there are any. Reports written before unsupported was
 * counted apart have no such field: their line is what they said.
 */
export function closingLine(s: Pick<Summary, 'passed' | 'failed' | 'flaky' | 'unsupported' | 'skipped'>): string {
  return `${s.passed} passed, ${s.failed} failed${s.flaky ? `, ${s.flaky} flaky` : ''}${s.unsupported ? `, ${s.unsupported} unsupported` : ''}${s.skipped ? `, ${s.skipped} skipped` : ''}`;
}
