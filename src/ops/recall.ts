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

/** A recall step's answer read as results: refused (`ok` false) or itemised as the target declares. */
export function readRecall(decl: TargetDecl, ok: boolean, text: string, query?: string): RecallResult {
  return ok ? itemiseRecall(decl, text, query) : refusedRecall(text);
}

/** Several calls of one op are joined by newlines; each may be a JSON document. */
const jsonChunks = (text: string) => text.split(/\n(?=[[{])/);

/**
 * Why a recall's JSON answer says the recall failed, though the call itself succeeded: a
 * `success: false`, `ok: false`, `isError: true`, a failure `status` ("error", "failed",
 * "failure", "fail") or a non-empty `error`, at the top level or in any object on the way to the
 * declared results array (`path`, e.g. `data.results`). Its empty result list
 * (`{"success":false,"results":[]}`, `{"data":{"results":[],"error":"…"}}`) is no "found nothing".
 */
export function failedAnswer(text: string, path?: string): string | undefined {
  const why = reportedFailure(text, path);
  return why && `its answer says the recall failed (${why})`;
}

const FAILED_STATUS = new Set(['error', 'failed', 'failure', 'fail']);

/** The failure marker an object of a JSON answer carries, if any. */
function failureMarker(o: Record<string, unknown>, at: string): string | undefined {
  if (o.success === false) return `${at}"success": false`;
  if (o.ok === false) return `${at}"ok": false`;
  if (o.isError === true) return `${at}"isError": true`;
  if (typeof o.status === 'string' && FAILED_STATUS.has(o.status.toLowerCase()))
    return `${at}"status": ${JSON.stringify(o.status)}`;
  const e = o.error;
  const empty =
    e === undefined || e === null || e === false || e === '' || (typeof e === 'object' && !Object.keys(e).length);
  return empty ? undefined : `${at}"error": ${JSON.stringify(e).slice(0, 120)}`;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function reportedFailure(text: string, path?: string): string | undefined {
  const parts = (path ?? '').split('.').filter(Boolean);
  for (const chunk of jsonChunks(text)) {
    if (!chunk.trim().startsWith('{')) continue;
    let v: unknown;
    try {
      v = JSON.parse(chunk);
    } catch {
      continue;
    }
    // the root, then each object on the way to the results array (not the array itself)
    let cur: unknown = v;
    for (let i = 0; isObject(cur); i++) {
      const why = failureMarker(cur, i ? `${parts.slice(0, i).join('.')}: ` : '');
      if (why) return why;
      if (i >= parts.length - 1) break;
      cur = cur[parts[i]];
    }
  }
  return undefined;
}

const holds = (item: string, text: string) => item.toLowerCase().includes(text.toLowerCase());

/** What one recall says about one text: whether a result holds it, or why that cannot be told. */
export type RecallFinding = { found: boolean } | { cannotTell: string };

/**
 * Whether a result of the recall for `query` holds `text` (case-insensitive), the one rule of the
 * scenario judges and the fuzzer. A refused, errored or unreadable recall cannot tell, whatever
 * its text holds. Without an itemisation the whole text is the one result, so when the text is
 * part of the query and the answer holds it, an echo of the query ("No results found for:
 * <query>") cannot be told from a result; an answer that does not hold it at all is a clear miss.
 */
export function recallFinds(r: RecallResult, query: string, text: string): RecallFinding {
  if (r.unreadable) return { cannotTell: unreadableDetail(query, r) };
  const found = r.items.some((i) => holds(i, text));
  if (found && !r.itemised && holds(query, text))
    return {
      cannotTell: `"${text}" is part of the query, so an echo of the query cannot be told from a result; declare recall_results in the target to itemise its results`,
    };
  return { found };
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
 * declaration, and it may well hold the memory a judge looks for), and so is a JSON answer that
 * says the recall failed, with or without a declaration.
 */
export function itemiseRecall(decl: TargetDecl, text: string, query?: string): RecallResult {
  const how = decl.recall_results;
  const failed = failedAnswer(text, how?.json);
  if (failed) return { text, items: [], itemised: how !== undefined, unreadable: failed };
  if (!how) return { text, items: text.trim() ? [text] : [], itemised: false };
  const items: string[] = [];
  // with `json`, a document with the declared array (even empty) is a form the declaration recognises
  let unrecognised = false;
  if (how.json !== undefined) {
    for (const chunk of jsonChunks(text)) {
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

/** The query a recall call was asked with: the argument the declaration fills with {{query}} alone. */
export function recallQuery(decl: TargetDecl, args: unknown): string | undefined {
  if (!args || typeof args !== 'object') return undefined;
  for (const call of decl.ops.recall ?? [])
    for (const [key, value] of Object.entries(call.args ?? {}))
      if (typeof value === 'string' && /^\{\{\s*query\s*\}\}$/.test(value)) {
        const q = (args as Record<string, unknown>)[key];
        if (typeof q === 'string') return q;
      }
  return undefined;
}

/**
 * One recall call's answer as a judge may read it: its items, or why it cannot be read. An answer
 * of a target that declares no itemisation cannot be told from an echo of its query, so it is
 * not read as results either.
 */
export function readRecallCall(
  decl: TargetDecl,
  call: { is_error: boolean; result_text: string; arguments: unknown },
): { items: string[] | null; unreadable: string | null } {
  const r = readRecall(decl, !call.is_error, call.result_text, recallQuery(decl, call.arguments));
  if (r.unreadable) return { items: null, unreadable: r.unreadable };
  if (!r.itemised)
    return {
      items: null,
      unreadable:
        'the target declares no recall_results, so its answer cannot be told from an echo of the query (declare recall_results)',
    };
  return { items: r.items, unreadable: null };
}
