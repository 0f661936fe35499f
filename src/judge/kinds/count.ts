import type { Assertion } from '../../scenario/schema.js';
import { compare, describeExpected } from '../compare.js';
import type { JudgeContext } from '../context.js';
import { clip } from '../../util/text.js';
import { memoriesViewProblem } from '../store-view.js';
import { decided, judgment, type Judgment } from '../judgment.js';

type Count = Extract<Assertion, { kind: 'count' }>;

export function judgeCount(a: Count, ctx: JudgeContext): Judgment {
  const unreadable = memoriesViewProblem(ctx.evidence.db);
  if (unreadable) return judgment(a, 'error', null, describeExpected(a.op, a.value), unreadable);
  const where: string[] = [];
  const params: string[] = [];
  const cmp = (col: string) =>
    a.case_sensitive ? `instr(CAST(${col} AS TEXT), ?) > 0` : `instr(lower(CAST(${col} AS TEXT)), lower(?)) > 0`;
  if (!a.include_deleted) where.push('coalesce(is_deleted, 0) = 0');
  if (a.contains !== undefined) (where.push(cmp('content')), params.push(a.contains));
  if (a.source !== undefined)
    (where.push(a.case_sensitive ? 'source = ?' : 'lower(source) = lower(?)'), params.push(a.source));
  if (a.category !== undefined)
    (where.push(a.case_sensitive ? 'category = ?' : 'lower(category) = lower(?)'), params.push(a.category));
  if (a.ref !== undefined) {
    // a ref's memory: by its captured id where there is one, else by the content it was written with
    const m = ctx.memory?.(a.ref.replace(/^\$ref:/, ''));
    if (!m)
      return judgment(
        a,
        'error',
        null,
        describeExpected(a.op, a.value),
        `no memory named ${a.ref} was seeded or stored`,
      );
    if (m.id)
      (where.push('(CAST(id AS TEXT) = ? OR instr(lower(CAST(content AS TEXT)), lower(?)) > 0)'),
        params.push(m.id, m.content));
    else (where.push(cmp('content')), params.push(m.content));
  }
  const sql = `SELECT count(*) AS n, group_concat(CAST(id AS TEXT), ', ') AS ids FROM memories${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`;
  const row = ctx.evidence.db.prepare(sql).get(...params) as { n: number; ids: string | null };
  const actual = row.n;
  const total = ctx.evidence.db.prepare('SELECT count(*) FROM memories').pluck().get() as number;
  const filter = [
    a.ref !== undefined && `of ${a.ref}`,
    a.contains !== undefined && `containing "${a.contains}"`,
    a.source && `source ${a.source}`,
    a.category && `category ${a.category}`,
  ]
    .filter(Boolean)
    .join(', ');
  return decided(a, compare(actual, a.op, a.value), {
    actual,
    expected: describeExpected(a.op, a.value),
    detail: `memories ${filter || '(all)'}`,
    observed: `${actual} of the ${total} row(s) of the memories view matched${row.ids ? ` (ids ${clip(row.ids, 200)})` : ''}`,
  });
}
