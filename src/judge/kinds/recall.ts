import type { Assertion } from '../../scenario/schema.js';
import { SHOWN, textMatch, type JudgeContext } from '../context.js';
import { clip } from '../../util/text.js';
import { decided, judgment, type Judgment } from '../judgment.js';
import { unreadableDetail } from '../../ops/recall.js';

type Recall = Extract<Assertion, { kind: 'recall' }>;

/**
 * Judged over the itemised results, never the raw text: a target that echoes the query
 * ("No results found for: pnpm") returns no item, and no item can satisfy `contains`.
 */
export async function judgeRecall(a: Recall, ctx: JudgeContext): Promise<Judgment> {
  const expected = [
    a.contains !== undefined && `an item contains "${a.contains}"`,
    a.not_contains !== undefined && `no item contains "${a.not_contains}"`,
  ]
    .filter(Boolean)
    .join(' and ');
  if (!ctx.recall) return judgment(a, 'abstain', null, expected, 'no recall probe available in this cell');
  const r = await ctx.recall(a.query);
  // a refused or unreadable recall is not an empty one: not_contains would pass over the memory itself
  if (r.unreadable) return judgment(a, 'error', clip(r.text, SHOWN), expected, unreadableDetail(a.query, r));
  if (!r.itemised && a.contains !== undefined && textMatch(a.query, a.contains, false))
    return judgment(
      a,
      'error',
      clip(r.text, SHOWN),
      expected,
      `"${a.contains}" is part of the query, so an echo of the query cannot be told from a result; declare recall_results in the target to itemise its results`,
    );
  const items = r.items;
  const ok =
    (a.contains === undefined || items.some((i) => textMatch(i, a.contains!, false))) &&
    (a.not_contains === undefined || !items.some((i) => textMatch(i, a.not_contains!, false)));
  const actual = items.length
    ? `${items.length} item(s): ${clip(items.join(' | '), SHOWN)}`
    : `no results (${clip(r.text, 120)})`;
  return decided(a, ok, {
    actual,
    expected,
    detail: `recall "${a.query}"`,
    observed: `the stored probe of "${clip(a.query, 80)}": ${items.length} itemised result(s)`,
  });
}
