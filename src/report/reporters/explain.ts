import type { CellAbout, CellResult, Judgment } from '../../core/results.js';

/** Anything on one line, clipped: recall results can be pages long. */
export function oneLine(v: unknown, max = 160): string {
  const s = (typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v))).replace(/\s+/g, ' ').trim();
  return s.length > max ? s.slice(0, max - 1) + '…' : s;
}

/**
 * A cell whose failing assertions caught the violation (verdict `detected`, not failing the run):
 * the instrument working, in either layer. Every report says "caught" for it (◆ on the console),
 * so the deterministic and the agent layer use one word.
 */
export function isCaught(r: Pick<CellResult, 'verdict' | 'fails_run'>): boolean {
  return r.verdict === 'detected' && !r.fails_run;
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

/** What the scenario guards, in a few words: the defence its violation probes and its tags. */
export function guardsText(about: CellAbout): string {
  return [
    about.defence ? `the ${about.defence} defence` : undefined,
    about.tags.length ? `tags ${about.tags.join(', ')}` : undefined,
  ]
    .filter(Boolean)
    .join('; ');
}

/** Why a cell exists, on one line: its scenario's title and description and what it guards. */
export function aboutText(about: CellAbout | undefined, max = 300): string | undefined {
  if (!about) return undefined;
  const guards = guardsText(about);
  return oneLine(`${about.title}: ${about.description}${guards ? ` (guards: ${guards})` : ''}`, max);
}
