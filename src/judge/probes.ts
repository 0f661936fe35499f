import type { Evidence } from '../evidence/open.js';
import { readRecallProbes, type RecallProbeRecord } from '../evidence/recall-probes.js';
import { failedAnswer, type RecallResult } from '../ops/recall.js';

/** Why an evidence DB without the table cannot answer: it predates stored probes. */
export const NO_PROBES_TABLE =
  "this cell's evidence has no recall_probes table (it was written by a memeval that asked the target again for each judge instead of keeping its probes), so there is no recall result to judge; rejudge replays nothing: run the scenario again with this memeval";

/**
 * The stored probe as judges read it: the result and, when it cannot be read as results, why. A
 * probe kept by a memeval that read a JSON answer saying the recall failed as "no results" is
 * read by today's rule, so rejudge does not pass over it.
 */
export function probeResult(p: RecallProbeRecord): RecallResult {
  const unreadable = p.unreadable ?? (p.is_error ? null : failedAnswer(p.result_text));
  return {
    text: p.result_text,
    items: unreadable ? [] : p.items.map((i) => i.content),
    itemised: p.itemised,
    ...(unreadable ? { unreadable } : {}),
  };
}

/**
 * What every recall-reading judge of a cell reads, live and in rejudge alike: the probes kept in
 * the evidence (asked once per distinct query after the snapshot). A query with no stored probe,
 * or evidence without the table, is an unreadable result with the reason, so judges over it are
 * `error`; nothing asks the target again.
 */
export function storedRecall(evidence: Evidence): (query: string) => Promise<RecallResult> {
  let probes: Map<string, RecallProbeRecord> | null | undefined;
  return async (query) => {
    if (probes === undefined) probes = readRecallProbes(evidence.db);
    if (probes === null) return { text: '', items: [], itemised: true, unreadable: NO_PROBES_TABLE, missing: true };
    const p = probes.get(query);
    if (!p)
      return {
        text: '',
        items: [],
        itemised: true,
        unreadable: `no probe of this query is stored in the cell's evidence (a cell probes the queries of the assertions that applied to it when it ran; was the scenario's query changed since?)`,
        missing: true,
      };
    return probeResult(p);
  };
}
