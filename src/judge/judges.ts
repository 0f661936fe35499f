import type { Assertion } from '../scenario/schema.js';
import type { Evidence } from '../evidence/build.js';
import { describeSightings, findEverywhere } from './absent.js';
import { compare, describeExpected } from './compare.js';
import { judgment, type Judgment } from './judgment.js';
import { readIfExists, resolveFixturePath, type FixtureFile, type FixtureView } from './fixture-files.js';

/** What judges may ask beyond the evidence DB: a recall probe run after the snapshot. */
export interface JudgeContext {
  evidence: Evidence;
  recall?: (query: string) => Promise<string>;
  transcript?: string;
  /** the fixture, for `file` assertions (absent when it is gone) */
  fixture?: FixtureView;
  /** files beyond the store that `absent` also scans (see fixture-files.ts) */
  files?: FixtureFile[];
}

function textMatch(hay: string, needle: string, caseSensitive: boolean): boolean {
  return caseSensitive ? hay.includes(needle) : hay.toLowerCase().includes(needle.toLowerCase());
}

function judgeCount(a: Extract<Assertion, { kind: 'count' }>, ctx: JudgeContext): Judgment {
  const where: string[] = [];
  const params: string[] = [];
  const cmp = (col: string) =>
    a.case_sensitive ? `instr(CAST(${col} AS TEXT), ?) > 0` : `instr(lower(CAST(${col} AS TEXT)), lower(?)) > 0`;
  if (!a.include_deleted) where.push('coalesce(is_deleted, 0) = 0');
  if (a.contains !== undefined) (where.push(cmp('content')), params.push(a.contains));
  if (a.source !== undefined) (where.push(a.case_sensitive ? 'source = ?' : 'lower(source) = lower(?)'), params.push(a.source));
  if (a.category !== undefined) (where.push(a.case_sensitive ? 'category = ?' : 'lower(category) = lower(?)'), params.push(a.category));
  const sql = `SELECT count(*) FROM memories${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`;
  const actual = ctx.evidence.db.prepare(sql).pluck().get(...params) as number;
  const filter = [a.contains !== undefined && `containing "${a.contains}"`, a.source && `source ${a.source}`, a.category && `category ${a.category}`]
    .filter(Boolean)
    .join(', ');
  return judgment(a, compare(actual, a.op, a.value) ? 'pass' : 'fail', actual, describeExpected(a.op, a.value), `memories ${filter || '(all)'}`);
}

function judgeSql(a: Extract<Assertion, { kind: 'sql' }>, ctx: JudgeContext): Judgment {
  const stmt = ctx.evidence.db.prepare(a.query);
  if (!stmt.reader || !stmt.readonly) return judgment(a, 'error', null, describeExpected(a.op, a.value), 'the query must be a read-only SELECT');
  const actual = stmt.pluck().get() ?? null;
  return judgment(a, compare(actual, a.op, a.value) ? 'pass' : 'fail', actual, describeExpected(a.op, a.value), a.query);
}

function judgeAbsent(a: Extract<Assertion, { kind: 'absent' }>, ctx: JudgeContext): Judgment {
  const found = findEverywhere(ctx.evidence.db, ctx.evidence.storeFiles, a.text, a.case_sensitive);
  const files = (ctx.files ?? []).filter((f) => textMatch(readIfExists(f.abs) ?? '', a.text, a.case_sensitive)).map((f) => f.label);
  const where = [describeSightings(found), ...files.map((l) => `fixture file ${l}`)].filter(Boolean).join('; ');
  const checked = `checked memories view, every store table column, raw store bytes${ctx.files ? `, ${ctx.files.length} fixture file(s) outside the store` : ''}`;
  return where
    ? judgment(a, 'fail', `found in ${where}`, `"${a.text}" nowhere`, where)
    : judgment(a, 'pass', 'nowhere', `"${a.text}" nowhere`, checked);
}

function judgeFile(a: Extract<Assertion, { kind: 'file' }>, ctx: JudgeContext): Judgment {
  const expected = [
    a.exists ? 'exists' : 'does not exist',
    a.contains !== undefined && `contains "${a.contains}"`,
    a.not_contains !== undefined && `does not contain "${a.not_contains}"`,
    a.regex !== undefined && `matches /${a.regex}/`,
  ]
    .filter(Boolean)
    .join(' and ');
  if (!ctx.fixture) return judgment(a, 'error', null, expected, 'the fixture is not available to this judge');
  const abs = resolveFixturePath(ctx.fixture, a.path);
  if (!abs) return judgment(a, 'error', null, expected, `${a.path} leaves the fixture`);
  const text = readIfExists(abs);
  if (text === undefined) return judgment(a, a.exists ? 'fail' : 'pass', 'missing', expected, a.path);
  if (!a.exists) return judgment(a, 'fail', 'exists', expected, a.path);
  const ok =
    (a.contains === undefined || textMatch(text, a.contains, a.case_sensitive)) &&
    (a.not_contains === undefined || !textMatch(text, a.not_contains, a.case_sensitive)) &&
    (a.regex === undefined || new RegExp(a.regex, a.case_sensitive ? '' : 'i').test(text));
  return judgment(a, ok ? 'pass' : 'fail', text.length > 400 ? text.slice(0, 400) + '…' : text, expected, a.path);
}

function judgeCalled(a: Extract<Assertion, { kind: 'called' }>, ctx: JudgeContext): Judgment {
  const where = ["stage IN ('step', 'agent')"];
  const params: string[] = [];
  if (a.call_op) (where.push('op = ?'), params.push(a.call_op));
  if (a.tool) (where.push('tool = ?'), params.push(a.tool));
  const actual = ctx.evidence.db.prepare(`SELECT count(*) FROM calls WHERE ${where.join(' AND ')}`).pluck().get(...params) as number;
  const what = [a.call_op && `op ${a.call_op}`, a.tool && `tool ${a.tool}`].filter(Boolean).join(', ');
  return judgment(a, compare(actual, a.op, a.value) ? 'pass' : 'fail', actual, describeExpected(a.op, a.value), `calls of ${what}`);
}

async function judgeRecall(a: Extract<Assertion, { kind: 'recall' }>, ctx: JudgeContext): Promise<Judgment> {
  const expected = [a.contains !== undefined && `contains "${a.contains}"`, a.not_contains !== undefined && `does not contain "${a.not_contains}"`]
    .filter(Boolean)
    .join(' and ');
  if (!ctx.recall) return judgment(a, 'abstain', null, expected, 'no recall probe available in this phase');
  const text = await ctx.recall(a.query);
  const ok = (a.contains === undefined || textMatch(text, a.contains, false)) && (a.not_contains === undefined || !textMatch(text, a.not_contains, false));
  return judgment(a, ok ? 'pass' : 'fail', text.length > 400 ? text.slice(0, 400) + '…' : text, expected, `recall "${a.query}"`);
}

function judgeTranscript(a: Extract<Assertion, { kind: 'transcript' }>, ctx: JudgeContext): Judgment {
  const expected = [
    a.contains !== undefined && `contains "${a.contains}"`,
    a.not_contains !== undefined && `does not contain "${a.not_contains}"`,
    a.regex !== undefined && `matches /${a.regex}/`,
  ]
    .filter(Boolean)
    .join(' and ');
  if (ctx.transcript === undefined) return judgment(a, 'abstain', null, expected, 'no agent transcript in this phase');
  const t = ctx.transcript;
  const ok =
    (a.contains === undefined || textMatch(t, a.contains, a.case_sensitive)) &&
    (a.not_contains === undefined || !textMatch(t, a.not_contains, a.case_sensitive)) &&
    (a.regex === undefined || new RegExp(a.regex, a.case_sensitive ? '' : 'i').test(t));
  return judgment(a, ok ? 'pass' : 'fail', t.length > 400 ? t.slice(0, 400) + '…' : t, expected, 'final answer');
}

/** Cheap deterministic judges run first; those needing a live server (recall) run last. */
const ORDER: Record<Assertion['kind'], number> = { count: 0, sql: 0, absent: 0, called: 0, transcript: 0, file: 0, recall: 1 };

export async function runJudges(assertions: Assertion[], ctx: JudgeContext): Promise<Judgment[]> {
  const sorted = assertions.map((a, i) => ({ a, i })).sort((x, y) => ORDER[x.a.kind] - ORDER[y.a.kind] || x.i - y.i);
  const out: Judgment[] = new Array(assertions.length);
  for (const { a, i } of sorted) {
    try {
      switch (a.kind) {
        case 'count':
          out[i] = judgeCount(a, ctx);
          break;
        case 'sql':
          out[i] = judgeSql(a, ctx);
          break;
        case 'absent':
          out[i] = judgeAbsent(a, ctx);
          break;
        case 'called':
          out[i] = judgeCalled(a, ctx);
          break;
        case 'recall':
          out[i] = await judgeRecall(a, ctx);
          break;
        case 'transcript':
          out[i] = judgeTranscript(a, ctx);
          break;
        case 'file':
          out[i] = judgeFile(a, ctx);
          break;
      }
    } catch (e) {
      out[i] = judgment(a, 'error', null, null, (e as Error).message);
    }
  }
  return out;
}
