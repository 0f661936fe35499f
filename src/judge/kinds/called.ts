import type { Assertion } from '../../scenario/schema.js';
import { compare, describeExpected } from '../compare.js';
import type { JudgeContext } from '../context.js';
import { decided, judgment, type Judgment } from '../judgment.js';

type Called = Extract<Assertion, { kind: 'called' }>;

/**
 * Count the phase's calls. `call_op` counts memory operations: memeval's own op runs by the number
 * their calls share (one remember is one, on a target that needs two tool calls for it as on one
 * that needs one), an agent's calls one each. `tool_calls_of_op` and `tool` count raw tool calls.
 */
export function judgeCalled(a: Called, ctx: JudgeContext): Judgment {
  const where = ["method = 'tools/call'", "stage IN ('step', 'agent')"];
  const params: string[] = [];
  const op = a.call_op ?? a.tool_calls_of_op;
  if (op) (where.push('op = ?'), params.push(op));
  if (a.tool) (where.push('tool = ?'), params.push(a.tool));
  const what = [
    a.call_op && `op ${a.call_op}`,
    a.tool_calls_of_op && `tool calls for op ${a.tool_calls_of_op}`,
    a.tool && `tool ${a.tool}`,
  ]
    .filter(Boolean)
    .join(', ');
  const columns = ctx.evidence.db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('calls') as string[];
  // evidence written before calls carried their op's number cannot tell two ops from one op of two calls
  if (a.call_op && !columns.includes('op_call'))
    return judgment(
      a,
      'error',
      null,
      describeExpected(a.op, a.value),
      `calls of ${what}: this evidence predates op numbering (no calls.op_call); run the cell again`,
    );
  const counted = a.call_op ? "count(DISTINCT COALESCE('op' || op_call, 'call' || seq))" : 'count(*)';
  const actual = ctx.evidence.db
    .prepare(`SELECT ${counted} FROM calls WHERE ${where.join(' AND ')}`)
    .pluck()
    .get(...params) as number;
  const all = ctx.evidence.db.prepare('SELECT count(*) FROM calls').pluck().get() as number;
  return decided(a, compare(actual, a.op, a.value), {
    actual,
    expected: describeExpected(a.op, a.value),
    detail: `${a.call_op ? 'operations' : 'calls'} of ${what}`,
    observed: `${actual} matching in the calls log of ${all} row(s)`,
  });
}
