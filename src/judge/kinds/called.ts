import type { Assertion } from '../../scenario/schema.js';
import { compare, describeExpected } from '../compare.js';
import type { JudgeContext } from '../context.js';
import { judgment, type Judgment } from '../judgment.js';

type Called = Extract<Assertion, { kind: 'called' }>;

export function judgeCalled(a: Called, ctx: JudgeContext): Judgment {
  const where = ["method = 'tools/call'", "stage IN ('step', 'agent')"];
  const params: string[] = [];
  if (a.call_op) (where.push('op = ?'), params.push(a.call_op));
  if (a.tool) (where.push('tool = ?'), params.push(a.tool));
  const actual = ctx.evidence.db
    .prepare(`SELECT count(*) FROM calls WHERE ${where.join(' AND ')}`)
    .pluck()
    .get(...params) as number;
  const what = [a.call_op && `op ${a.call_op}`, a.tool && `tool ${a.tool}`].filter(Boolean).join(', ');
  return judgment(
    a,
    compare(actual, a.op, a.value) ? 'pass' : 'fail',
    actual,
    describeExpected(a.op, a.value),
    `calls of ${what}`,
  );
}
