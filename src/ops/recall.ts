import { matchAllBounded } from '../util/bounded-regex.js';
import type { TargetDecl } from '../targets/schema.js';

/** What a recall returned: the raw text and, where the target says how, the separate results. */
export interface RecallResult {
  text: string;
  items: string[];
  /** false when the target declares no itemisation: items is then the whole text, or nothing */
  itemised: boolean;
}

function atPath(value: unknown, path: string): unknown {
  let cur = value;
  for (const part of path.split('.').filter(Boolean)) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/**
 * Split a recall's result text into its results, as the target declares (`recall_results`):
 * a JSON path to an array, or a regex whose every match is one result. Header lines, "no
 * results for <query>" echoes and footers are not results, so they can never satisfy `contains`.
 */
export function itemiseRecall(decl: TargetDecl, text: string): RecallResult {
  const how = decl.recall_results;
  if (!how) return { text, items: text.trim() ? [text] : [], itemised: false };
  if (how.json !== undefined) {
    const items: string[] = [];
    // several calls of one op are joined by newlines; each may be a JSON document
    for (const chunk of text.split(/\n(?=[[{])/)) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(chunk);
      } catch {
        continue;
      }
      const arr = atPath(parsed, how.json);
      if (Array.isArray(arr)) items.push(...arr.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))));
    }
    return { text, items, itemised: true };
  }
  const re = new RegExp(how.regex!, 'gmu');
  return { text, items: matchAllBounded(re, text, 'recall_results.regex').map((m) => m[1] ?? m[0]), itemised: true };
}
