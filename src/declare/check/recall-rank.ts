/**
 * Whether a target's recall ranks by the query: two memories written, each recalled by its own
 * word, and a query that matches neither. A recall that lists every memory whatever it is asked
 * (a list tool mapped as recall) would make every recall judge read memories the query never
 * asked for; this says so from the itemised results alone.
 */

/** One recall as the check made it: the query, and its itemised results (undefined: unreadable or refused). */
export interface RankedRecall {
  query: string;
  items?: string[];
}

export type RankVerdict =
  { status: 'pass'; detail: string } | { status: 'fail'; detail: string } | { status: 'unchecked'; detail: string };

/** The first result holding `word` (case-insensitive), or undefined. */
export function rankOf(items: string[], word: string): number | undefined {
  const w = word.toLowerCase();
  const i = items.findIndex((it) => it.toLowerCase().includes(w));
  return i < 0 ? undefined : i;
}

/**
 * `own`: memory A recalled by A's word; `other`: memory B recalled by B's word; `unrelated`: a
 * query neither holds. Each memory named by its word. Fails when a query ranks the other memory
 * strictly above the one it names, or when nothing shows the results depend on the query at all
 * (each query found the other memory no lower than its own, and the unrelated one found both).
 */
export function rankVerdict(
  words: { a: string; b: string },
  own: RankedRecall,
  other: RankedRecall,
  unrelated: RankedRecall,
): RankVerdict {
  if (!own.items || !other.items)
    return { status: 'unchecked', detail: "not reached: a recall by a memory's own word could not be read" };
  const pa = rankOf(own.items, words.a);
  const pb = rankOf(own.items, words.b);
  const qb = rankOf(other.items, words.b);
  const qa = rankOf(other.items, words.a);
  if (pa === undefined)
    return { status: 'unchecked', detail: `not reached: recall "${own.query}" did not return its memory` };
  if (qb === undefined)
    return {
      status: 'fail',
      detail: `recall "${other.query}" itemises to ${other.items.length} result(s), none holding the second memory written (the one with "${words.b}"), though recall "${own.query}" found the first`,
    };
  const above = (q: RankedRecall, mine: number, theirs: number | undefined, word: string) =>
    theirs !== undefined && theirs < mine
      ? `recall "${q.query}" ranks the other memory (result ${theirs + 1}) above the one holding "${word}" (result ${mine + 1})`
      : undefined;
  const wrong = above(own, pa, pb, words.a) ?? above(other, qb, qa, words.b);
  if (wrong) return { status: 'fail', detail: `${wrong}: the results do not follow the query` };
  const ua = unrelated.items ? rankOf(unrelated.items, words.a) : undefined;
  const ub = unrelated.items ? rankOf(unrelated.items, words.b) : undefined;
  const evidence = [
    pb === undefined
      ? `"${own.query}" leaves out the other memory`
      : pa < pb
        ? `"${own.query}" ranks its own first`
        : '',
    qa === undefined
      ? `"${other.query}" leaves out the other memory`
      : qb < qa
        ? `"${other.query}" ranks its own first`
        : '',
    unrelated.items && ua === undefined && ub === undefined ? `"${unrelated.query}" returns neither` : '',
  ].filter(Boolean);
  if (evidence.length) return { status: 'pass', detail: `recall follows the query: ${evidence.join('; ')}` };
  if (!unrelated.items)
    return {
      status: 'unchecked',
      detail: `"${own.query}" and "${other.query}" both returned both memories ranked alike, and the unrelated recall could not be read to tell`,
    };
  return {
    status: 'fail',
    detail: `every recall returned both memories ranked alike ("${own.query}", "${other.query}"${` and the unrelated "${unrelated.query}"`}): the results do not depend on the query`,
  };
}
