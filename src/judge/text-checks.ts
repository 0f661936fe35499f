import type { TextCheck } from '../scenario/judge-kinds-schema.js';
import { execBounded } from '../util/bounded-regex.js';
import { compare, describeExpected, incomparable } from './compare.js';
import { textMatch } from './context.js';
import { messageOf } from '../util/errors.js';

/** How a text held up against its checks: every check's result, or why it could not be judged. */
export type TextVerdict = { ok: boolean; failed: string[] } | { unjudgeable: string };

/** What the checks expect, in words. */
export function describeTextCheck(c: Partial<TextCheck>): string[] {
  return [
    c.contains !== undefined && `contains "${c.contains}"`,
    c.not_contains !== undefined && `does not contain "${c.not_contains}"`,
    c.regex !== undefined && `matches /${c.regex}/`,
    c.json !== undefined && `JSON ${c.json.path} ${describeExpected(c.json.op, c.json.value)}`,
  ].filter((x): x is string => typeof x === 'string');
}

/** Does the check name anything to judge? */
export function hasTextCheck(c: Partial<TextCheck>): boolean {
  return describeTextCheck(c).length > 0;
}

/**
 * Judge a text (a command's stdout, a file it wrote) by every check given. JSON that does not
 * parse, or a path that names nothing in it, is not a fail: the check could not be made.
 * A regex that runs too long throws RegexTimeout (the caller's judge says `error`).
 */
export function judgeText(text: string, c: Partial<TextCheck>, what: string): TextVerdict {
  const cs = c.case_sensitive ?? false;
  const failed: string[] = [];
  if (c.contains !== undefined && !textMatch(text, c.contains, cs)) failed.push(`${what} lacks "${c.contains}"`);
  if (c.not_contains !== undefined && textMatch(text, c.not_contains, cs))
    failed.push(`${what} contains "${c.not_contains}"`);
  if (c.regex !== undefined && execBounded(new RegExp(c.regex, cs ? '' : 'i'), text, 'regex') === null)
    failed.push(`${what} does not match /${c.regex}/`);
  if (c.json !== undefined) {
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      return { unjudgeable: `${what} is not JSON (${messageOf(e)})` };
    }
    const found = jsonPath(doc, c.json.path);
    if (!found.found) return { unjudgeable: `${what}: JSON path ${c.json.path} names nothing (${found.why})` };
    const v = found.value;
    const actual = v === null || typeof v === 'boolean' ? String(v) : v;
    const expected = c.json.value === null || typeof c.json.value === 'boolean' ? String(c.json.value) : c.json.value;
    if (typeof actual !== 'number' && typeof actual !== 'string')
      return {
        unjudgeable: `${what}: JSON path ${c.json.path} is ${Array.isArray(v) ? 'an array' : 'an object'}, not a value (add .length to count it)`,
      };
    const why = typeof c.json.value === 'number' ? incomparable(v, c.json.value) : undefined;
    if (why) return { unjudgeable: `${what}: JSON path ${c.json.path}: ${why}` };
    if (!compare(actual, c.json.op, expected))
      failed.push(
        `${what} JSON ${c.json.path} is ${JSON.stringify(v)}, expected ${describeExpected(c.json.op, c.json.value)}`,
      );
  }
  return { ok: failed.length === 0, failed };
}

/** Follow `$.a.b[0].length`; `.length` of an array or string is its length. */
export function jsonPath(doc: unknown, path: string): { found: true; value: unknown } | { found: false; why: string } {
  let cur: unknown = doc;
  const parts = path.slice(1).match(/\.[A-Za-z_][\w-]*|\[\d+\]/g) ?? [];
  for (const p of parts) {
    const key = p.startsWith('[') ? Number(p.slice(1, -1)) : p.slice(1);
    if (key === 'length' && (Array.isArray(cur) || typeof cur === 'string')) cur = cur.length;
    else if (typeof key === 'number' && Array.isArray(cur) && key < cur.length) cur = cur[key];
    else if (typeof key === 'string' && cur !== null && typeof cur === 'object' && !Array.isArray(cur) && key in cur)
      cur = (cur as Record<string, unknown>)[key];
    else return { found: false, why: `no ${p} at that point` };
  }
  return { found: true, value: cur };
}
