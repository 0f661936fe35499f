import { captureId } from '../../ops/ops.js';
import { itemiseRecall } from '../../ops/recall.js';
import type { TargetDecl } from '../../targets/schema.js';
import { QUERY_PLACEHOLDER } from '../../targets/recall-empty.js';
import { markerPath } from './store.js';

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** Keys of a JSON result that name the stored memory. */
const ID_KEYS = ['id', 'memoryId', 'memory_id', 'uuid', 'entryId', 'entry_id', 'itemId', 'item_id', 'key'];
/** Any other key that names an id of the thing stored (observationId, note_id), but not of its surroundings. */
const isIdKey = (k: string) =>
  ID_KEYS.includes(k) || (/(?:[a-z]Id|_id)$/.test(k) && !/^(session|project|parent|user|actor|source)/i.test(k));

/**
 * The values at keys named like an id in a JSON value: the memory's own names (`id`, `memoryId`)
 * before any other `…Id` (an `agentId` the call itself passed), each depth-first.
 */
function idsInJson(value: unknown): { key: string; value: string }[] {
  const own: { key: string; value: string }[] = [];
  const other: { key: string; value: string }[] = [];
  const walk = (v: unknown, depth: number) => {
    if (depth > 6 || !v || typeof v !== 'object') return;
    const entries = Array.isArray(v) ? v.map((x, i) => [String(i), x] as const) : Object.entries(v);
    for (const [k, x] of entries)
      if (isIdKey(k) && (typeof x === 'string' || typeof x === 'number'))
        (ID_KEYS.includes(k) ? own : other).push({ key: k, value: String(x) });
    for (const [, x] of entries) walk(x, depth + 1);
  };
  walk(value, 0);
  return [...own, ...other];
}

/** The first key whose value is `id`, depth-first, in a JSON value. */
function keyHolding(value: unknown, id: string, depth = 0): string | undefined {
  if (depth > 6 || !value || typeof value !== 'object') return undefined;
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  for (const [k, v] of entries) if (!Array.isArray(value) && String(v) === id && typeof v !== 'object') return k;
  for (const [, v] of entries) {
    const found = keyHolding(v, id, depth + 1);
    if (found) return found;
  }
  return undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A character class that covers an id and what ids like it look like. */
function idClass(id: string): string {
  if (/^\d+$/.test(id)) return '\\d+';
  if (/^[0-9a-fA-F-]+$/.test(id)) return '[0-9a-fA-F-]+';
  return '[\\w.:-]+';
}

/**
 * A `capture_id` regex that takes `id` out of a remember's result text. With no known id, a JSON
 * result's id-named key. The regex is built from the literal text before the id (`"id": `,
 * `Saved memory #`) and checked by applying it as a run would: to this text it must give the id,
 * and to `other` (the answer to a second, different memory) an id of its own. A regex that takes
 * the same value from both, or a value the call itself passed (`constants`: an agent id), takes
 * no memory's id.
 */
export function inferCaptureId(
  text: string,
  knownIds: string[],
  other?: string,
  constants: string[] = [],
): { capture_id?: string; id?: string; refused?: string } {
  const json = parseJson(text.trim());
  const candidates: { pattern: string; id: string }[] = [];
  // a JSON result: the key that holds the id, wherever the server's formatter puts it
  for (const id of knownIds.filter(Boolean)) {
    const key = json !== undefined ? keyHolding(json, id) : undefined;
    if (key) candidates.push({ pattern: `"${escapeRegex(key)}"\\s*:\\s*"?([^",}\\s]+)`, id });
  }
  for (const id of knownIds.filter(Boolean)) {
    let at = text.indexOf(id);
    while (at >= 0) {
      const lineStart = text.lastIndexOf('\n', at - 1) + 1;
      const from = Math.max(lineStart, at - 16);
      // a window cut mid-word starts at the next word; one that reaches the line's start is anchored there
      const before = from === lineStart ? text.slice(from, at) : text.slice(from, at).replace(/^\w+(?=\W)/, '');
      const anchor = from === lineStart ? '^' : '';
      if (before.trim()) candidates.push({ pattern: `${anchor}${escapeRegex(before)}(${idClass(id)})`, id });
      at = text.indexOf(id, at + 1);
    }
  }
  // no id known from the store: a labelled id ("ID: 12", "id=ab3", "#7") in the text
  const labelled = /(?:\bid\b\s*[:=#]?|#)\s*([\w-]*\d[\w-]*)/i.exec(text);
  if (labelled && json === undefined) {
    const at = labelled.index + labelled[0].length - labelled[1].length;
    const before = text.slice(labelled.index, at);
    candidates.push({ pattern: `${escapeRegex(before)}(${idClass(labelled[1])})`, id: labelled[1] });
  }
  for (const j of json !== undefined ? idsInJson(json) : []) {
    const quoted = /^\d+$/.test(j.value) ? `(\\d+)` : `"([^"]+)"`;
    candidates.push({ pattern: `"${escapeRegex(j.key)}"\\s*:\\s*${quoted}`, id: j.value });
  }
  const refused: string[] = [];
  const ok = candidates.find((c) => {
    if (captureId(c.pattern, text) !== c.id) return false;
    if (constants.includes(c.id)) {
      refused.push(`/${c.pattern}/ takes "${c.id}", a value the remember call itself passes`);
      return false;
    }
    if (other === undefined) return true;
    const second = captureId(c.pattern, other);
    if (second !== undefined && second !== c.id) return true;
    refused.push(
      `/${c.pattern}/ takes ${second === undefined ? `nothing from the second memory's answer` : `"${c.id}" from the answers to two different memories`}`,
    );
    return false;
  });
  if (ok) return { capture_id: ok.pattern, id: ok.id };
  return refused.length ? { refused: [...new Set(refused)].join('; ') } : {};
}

export type RecallResults = NonNullable<TargetDecl['recall_results']>;

/** One recall made while drafting: the query and the text that came back. */
export interface RecallSample {
  query: string;
  text: string;
  ok: boolean;
}

/** The dot path of the outermost array on the way to the marker in a JSON result, if any. */
function arrayPathToMarker(json: unknown, marker: string): string | undefined {
  const path = markerPath(json, marker);
  if (!path) return undefined;
  // the outermost array: its elements are the results (entities), not their parts (observations)
  const first = path.findIndex((p) => typeof p === 'number');
  return first < 0 ? undefined : path.slice(0, first).join('.');
}

/** What starts a result's line: a bullet, a number, or nothing recognisable. */
function resultStart(line: string): string | undefined {
  const bullet = /^\s*([^\w\s"'{[(]+)\s/.exec(line);
  if (bullet) return escapeRegex(bullet[1]);
  if (/^\s*\d+[.)]\s/.test(line)) return '\\d+[.)]';
  return undefined;
}

/**
 * Regexes that might each match one result, from each line holding the marker: that line by its
 * bullet or number, a block from the nearest line above that starts like a result up to the next
 * such line or a blank line, or the line by its label ("Task: ").
 */
function lineCandidates(text: string, marker: string): string[] {
  const lines = text.split('\n');
  const out: string[] = [];
  // every line holding the marker: one of them may only echo the query
  lines.forEach((line, at) => {
    if (!line.includes(marker)) return;
    const own = resultStart(line);
    if (own) out.push(`^\\s*${own}\\s.+$`);
    for (let i = at; i >= 0 && lines[i].trim(); i--) {
      const start = resultStart(lines[i]);
      if (start) {
        out.push(`^\\s*${start}\\s.+(?:\\n(?!\\s*${start}\\s).+)*`);
        break;
      }
    }
    const label = /^\s*[A-Za-z][\w ]*?:\s/.exec(line.slice(0, line.indexOf(marker)));
    if (label) out.push(`^\\s*${escapeRegex(label[0].trim())}\\s.+$`);
  });
  out.push('^.+$');
  return [...new Set(out)];
}

/** The empty form two unrelated recalls share, with each query standing as {{query}}. */
function emptyForm(misses: RecallSample[]): RecallResults['empty'] | 'differs' | undefined {
  const forms = misses.map((m) => m.text.trim().split(m.query).join(QUERY_PLACEHOLDER));
  if (forms.every((f) => f === '')) return undefined;
  if (forms.every((f) => f === forms[0])) return { text: forms[0] };
  // the same text but for numbers (a timing, a count): the numbers as \d+
  const numbered = forms.map((f) =>
    f
      .split(QUERY_PLACEHOLDER)
      .map((part) => escapeRegex(part).replace(/\d+(\\\.\d+)?/g, '\\d+(?:\\.\\d+)?'))
      .join(QUERY_PLACEHOLDER),
  );
  if (numbered.every((f) => f === numbered[0])) return { regex: numbered[0] };
  return 'differs';
}

/**
 * How a recall's text splits into results, tried against real results: a recall for the marker
 * must itemise to the memory written as one result (with, from a server of nearest matches, the
 * `others` written beside it as results of their own, and nothing else), and every unrelated
 * recall to none (its text the declared empty form). The first candidate that does is the
 * draft's; none: say why.
 */
export function inferRecallResults(
  hit: RecallSample,
  misses: RecallSample[],
  marker: string,
  decl: TargetDecl,
  others: string[] = [],
): { recall_results?: RecallResults; notes: string[] } {
  if (!hit.ok) return { notes: [`the recall for "${hit.query}" was refused: ${hit.text.slice(0, 200)}`] };
  if (!hit.text.includes(marker))
    return {
      notes: [
        `the recall for "${hit.query}" did not return the marker memory, so its format could not be read; it returned ${JSON.stringify(hit.text.slice(0, 200))}`,
      ],
    };
  const refused = misses.find((m) => !m.ok);
  if (refused) return { notes: [`the recall for "${refused.query}" was refused: ${refused.text.slice(0, 200)}`] };
  const markers = [marker, ...others];
  const holdsAny = (text: string) => markers.some((mk) => text.includes(mk));
  const nearest = misses.filter((m) => holdsAny(m.text));
  const empty = emptyForm(misses.filter((m) => !holdsAny(m.text)));
  const notes: string[] = [];
  if (empty === 'differs')
    notes.push(
      `two recalls that found nothing answered differently (${misses.map((m) => JSON.stringify(m.text.slice(0, 80))).join(', ')}); declare recall_results.empty yourself`,
    );
  if (nearest.length)
    notes.push(
      `unrelated queries (${nearest.map((m) => JSON.stringify(m.query)).join(', ')}) also returned the marker: the server answers with its nearest matches, so no empty form is declared`,
    );
  const withEmpty = (r: RecallResults): RecallResults => (empty && empty !== 'differs' ? { ...r, empty } : r);
  const candidates: RecallResults[] = [];
  const json = parseJson(hit.text.trim());
  if (json !== undefined) {
    const path = arrayPathToMarker(json, marker);
    if (path !== undefined) candidates.push({ json: path }, withEmpty({ json: path }));
  }
  for (const regex of lineCandidates(hit.text, marker)) candidates.push({ regex }, withEmpty({ regex }));
  const fits = (r: RecallResults) => {
    const d = { ...decl, recall_results: r };
    const h = itemiseRecall(d, hit.text, hit.query);
    const own = h.items.filter((i) => i.includes(marker));
    // each result one memory written: the marker's alone, any other a memory of its own (no header line)
    if (h.unreadable || own.length !== 1 || others.some((o) => own[0].includes(o))) return false;
    if (h.items.some((i) => !markers.some((mk) => i.includes(mk)))) return false;
    return misses.every((m) => {
      const x = itemiseRecall(d, m.text, m.query);
      // a server that answers every query with its nearest matches returns the markers here too
      const near = markers.filter((mk) => m.text.includes(mk));
      return !x.unreadable && (near.length ? near.every((mk) => x.items.some((i) => i.includes(mk))) : !x.items.length);
    });
  };
  const found = candidates.find(fits);
  if (!found)
    notes.push(
      `no recall_results form splits the recall's text into the one memory written; it returned ${JSON.stringify(hit.text.slice(0, 200))}`,
    );
  return { recall_results: found, notes };
}
