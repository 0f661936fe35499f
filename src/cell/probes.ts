import type { RecallProbeRecord } from '../evidence/recall-probes.js';
import type { ProbedRecall } from '../ops/ops.js';
import { messageOf } from '../util/errors.js';

/**
 * Ask each distinct query once, in order, and keep what came back as the evidence stores it. A
 * probe that throws (the server died, timed out) is kept too, as an error with its message:
 * every judge over it is then `error`, never a pass over an empty result.
 */
export async function runRecallProbes(
  queries: string[],
  recall: (query: string) => Promise<ProbedRecall>,
): Promise<RecallProbeRecord[]> {
  const out: RecallProbeRecord[] = [];
  for (const query of queries) {
    const ts = new Date().toISOString();
    const started = performance.now();
    try {
      const r = await recall(query);
      out.push({
        query,
        result_text: r.text,
        items: r.items.map((content, i) => ({ rank: i + 1, content })),
        itemised: r.itemised,
        is_error: r.is_error,
        unreadable: r.unreadable ?? null,
        ms: r.ms,
        ts,
      });
    } catch (e) {
      out.push({
        query,
        result_text: '',
        items: [],
        itemised: true,
        is_error: true,
        unreadable: `the probe failed: ${messageOf(e)}`,
        ms: Math.round((performance.now() - started) * 100) / 100,
        ts,
      });
    }
  }
  return out;
}
