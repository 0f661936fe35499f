import type { CellResult, Judgment } from '../../core/results.js';

/** Anything on one line, clipped: recall results can be pages long. */
export function oneLine(v: unknown, max = 160): string {
  const s = (typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v))).replace(/\s+/g, ' ').trim();
  return s.length > max ? s.slice(0, max - 1) + '…' : s;
}

/** A violation cell whose failing assertions caught the violation: those are the instrument working. */
export function isCaught(r: CellResult): boolean {
  return r.phase === 'violation' && r.verdict === 'detected' && !r.fails_run;
}

export function failingAssertions(r: CellResult): Judgment[] {
  return r.assertions.filter((a) => a.outcome === 'fail' || a.outcome === 'error');
}

/** Why a cell fails the run, in one line (what a recap, an annotation or a JUnit message says). */
export function failureReason(r: CellResult): string {
  const first = failingAssertions(r)[0];
  const detail =
    first && r.verdict !== 'error'
      ? ` (${first.name}: actual ${oneLine(first.actual, 80)}, expected ${oneLine(first.expected, 80)})`
      : '';
  if (r.verdict === 'detected' && r.claimed) return `claims ${r.defence ?? 'a defence'}, only detected${detail}`;
  return r.reason + detail;
}
