import { execBounded, matchAllBounded } from '../util/bounded-regex.js';
import type { TargetDecl } from '../targets/schema.js';
import { emptyPattern, QUERY_PLACEHOLDER as QUERY } from '../targets/recall-empty.js';

/** What a recall returned: the raw text and, where the target says how, the separate results. */
export interface RecallResult {
  text: string;
  items: string[];
  /** false when the target declares no itemisation: items is then the whole text, or nothing */
  itemised: boolean;
  /**
   * Why the result cannot be read as results at all (refused, an error, a text in none of the
   * declared forms). Zero items is then not "no results": judges over it are `error`.
   */
  unreadable?: string;
  /** no answer exists to quote (no probe was stored for the query): `unreadable` says why */
  missing?: boolean;
}

function atPath(value: unknown, path: string): unknown {
  let cur = value;
  for (const part of path.split('.').filter(Boolean)) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** How much of an unreadable recall's text a judgment quotes. */
const QUOTED = 200;

/** The detail of a judgment over an unreadable recall: the query, why, and the start of what came back. */
export function unreadableDetail(query: string, r: RecallResult): string {
  if (r.missing) return `recall "${query}": ${r.unreadable}`;
  const quoted = r.text.trim()
    ? JSON.stringify(r.text.slice(0, QUOTED)) + (r.text.length > QUOTED ? '…' : '')
    : '(nothing)';
  return `recall "${query}" cannot be read as results: ${r.unreadable}; it returned ${quoted}`;
}

/** A recall the target refused or answered with an error: whatever its text holds, it is not "no results". */
export function refusedRecall(text: string): RecallResult {
  return { text, items: [], itemised: true, unreadable: 'the target refused it or answered with an error' };
}

/**
 * Whether a text that itemised to nothing is the target's declared "found nothing"
 * (`recall_results.empty`): the whole trimmed text equals `text` or matches `regex`, where
 * {{query}} stands for the query (so an echo of another query is not this one's "none").
 */
function isDeclaredEmpty(decl: TargetDecl, text: string, query: string | undefined): boolean {
  const empty = decl.recall_results?.empty;
  if (!empty) return false;
  const form = empty.text ?? empty.regex!;
  if (form.includes(QUERY) && query === undefined) return false;
  const t = text.trim();
  if (empty.text !== undefined)
    return (
      t ===
      empty.text
        .trim()
        .split(QUERY)
        .join(query ?? '')
    );
  return execBounded(emptyPattern(empty.regex!, query ?? ''), t, 'recall_results.empty.regex') !== null;
}

/**
 * Split a recall's result text into its results, as the target declares (`recall_results`):
 * a JSON path to an array, or a regex whose every match is one result. Header lines, "no
 * results for <query>" echoes and footers are not results, so they can never satisfy `contains`.
 * Zero items is "no results" only for an empty text, a JSON document whose declared array is
 * empty, or the declared empty form; any other text is `unreadable` (its format drifted from the
 * declaration, and it may well hold the memory a judge looks for).
 */
export function itemiseRecall(decl: TargetDecl, text: string, query?: string): RecallResult {
  const how = decl.recall_results;
  if (!how) return { text, items: text.trim() ? [text] : [], itemised: false };
  const items: string[] = [];
  // with `json`, a document with the declared array (even empty) is a form the declaration recognises
  let unrecognised = false;
  if (how.json !== undefined) {
    // several calls of one op are joined by newlines; each may be a JSON document
    for (const chunk of text.split(/\n(?=[[{])/)) {
      if (!chunk.trim()) continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(chunk);
      } catch {
        unrecognised = true;
        continue;
      }
      const arr = atPath(parsed, how.json);
      if (Array.isArray(arr)) items.push(...arr.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))));
      else unrecognised = true;
    }
  } else {
    const re = new RegExp(how.regex!, 'gmu');
    items.push(...matchAllBounded(re, text, 'recall_results.regex').map((m) => m[1] ?? m[0]));
    unrecognised = text.trim() !== '';
  }
  if (items.length || !unrecognised || isDeclaredEmpty(decl, text, query)) return { text, items, itemised: true };
  const form =
    how.json !== undefined ? `a JSON document with an array at "${how.json}"` : `a match of recall_results.regex`;
  return {
    text,
    items,
    itemised: true,
    unreadable: `its text holds no result (${form}) and is not the declared empty form${how.empty ? '' : ' (the target declares none: recall_results.empty)'}`,
  };
}
