import type { Assertion } from '../scenario/schema.js';
import type { Evidence } from '../evidence/build.js';
import { describeSightings, findEverywhere } from './absent.js';
import { compare, describeExpected } from './compare.js';
import { judgment, type Judgment } from './judgment.js';
import { judgeCascade, judgeJury } from './compose.js';
import { judgeLlm } from './llm/judge-llm.js';
import type { JudgeModel } from './llm/client.js';
import { judgeRank, type RecallItem } from './rank.js';

/** What judges may ask beyond the evidence DB: a recall probe run after the snapshot. */
export interface JudgeContext {
  evidence: Evidence;
  recall?: (query: string) => Promise<string>;
  /** itemised recall results, where the target declares how to itemise them */
  recallItems?: (query: string) => Promise<{ items: RecallItem[] | null; text: string }>;
  transcript?: string;
  /** the judge model for `llm` assertions (null: none configured, they abstain) */
  judgeModel?: JudgeModel | null;
  scenarioDir?: string;
  fixtureDir?: string;
  /** a scenario ref's memory: its captured id and content */
  memory?: (ref: string) => { id: string; content: string } | undefined;
}

function recallWithItems(ctx: JudgeContext): ((q: string) => Promise<{ items: RecallItem[] | null; text: string }>) | undefined {
  if (ctx.recallItems) return ctx.recallItems;
  const recall = ctx.recall;
  return recall ? async (q) => ({ items: null, text: await recall(q) }) : undefined;
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
  if (a.ref !== undefined) {
    // a ref's memory: by its captured id where there is one, else by the content it was seeded with
    const m = ctx.memory?.(a.ref.replace(/^\$ref:/, ''));
    if (!m) return judgment(a, 'error', null, describeExpected(a.op, a.value), `no memory named ${a.ref} was seeded or stored`);
    if (m.id) (where.push('(CAST(id AS TEXT) = ? OR instr(lower(CAST(content AS TEXT)), lower(?)) > 0)'), params.push(m.id, m.content));
    else (where.push(cmp('content')), params.push(m.content));
  }
  const sql = `SELECT count(*) FROM memories${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`;
  const actual = ctx.evidence.db.prepare(sql).pluck().get(...params) as number;
  const filter = [a.ref !== undefined && `of ${a.ref}`, a.contains !== undefined && `containing "${a.contains}"`, a.source && `source ${a.source}`, a.category && `category ${a.category}`]
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
  return found.length
    ? judgment(a, 'fail', `found in ${describeSightings(found)}`, `"${a.text}" nowhere`, describeSightings(found))
    : judgment(a, 'pass', 'nowhere', `"${a.text}" nowhere`, 'checked memories view, every store table column, raw store bytes');
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
const ORDER: Record<Assertion['kind'], number> = { count: 0, sql: 0, absent: 0, called: 0, transcript: 0, recall: 1, rank: 1, jury: 2, cascade: 2, llm: 3 };

/** Judge one assertion of any kind (jury and cascade members come back through here). */
export async function judgeOne(a: Assertion, ctx: JudgeContext): Promise<Judgment> {
  switch (a.kind) {
    case 'count':
      return judgeCount(a, ctx);
    case 'sql':
      return judgeSql(a, ctx);
    case 'absent':
      return judgeAbsent(a, ctx);
    case 'called':
      return judgeCalled(a, ctx);
    case 'recall':
      return judgeRecall(a, ctx);
    case 'transcript':
      return judgeTranscript(a, ctx);
    case 'rank':
      return judgeRank(a, { recall: recallWithItems(ctx), memory: ctx.memory ?? (() => undefined) });
    case 'llm': {
      const recall = recallWithItems(ctx);
      return judgeLlm(a, {
        model: ctx.judgeModel ?? null,
        scenarioDir: ctx.scenarioDir,
        sources: {
          db: ctx.evidence.db,
          recall: recall && (async (q) => {
            const r = await recall(q);
            return { items: r.items?.map((i) => i.text) ?? null, text: r.text };
          }),
          answer: ctx.transcript,
          fixtureDir: ctx.fixtureDir,
        },
      });
    }
    case 'jury':
      return judgeJury(a, (m) => judgeOne(m, ctx));
    case 'cascade':
      return judgeCascade(a, (m) => judgeOne(m, ctx));
  }
}

export async function runJudges(assertions: Assertion[], ctx: JudgeContext): Promise<Judgment[]> {
  const sorted = assertions.map((a, i) => ({ a, i })).sort((x, y) => ORDER[x.a.kind] - ORDER[y.a.kind] || x.i - y.i);
  const out: Judgment[] = new Array(assertions.length);
  for (const { a, i } of sorted) {
    try {
      out[i] = await judgeOne(a, ctx);
    } catch (e) {
      out[i] = judgment(a, 'error', null, null, (e as Error).message);
    }
  }
  return out;
}
