import type { Assertion } from '../../scenario/schema.js';
import { SHOWN, type JudgeContext } from '../context.js';
import { clip } from '../../util/text.js';
import { decided, judgment, type Judgment } from '../judgment.js';
import { recallFinds, type RecallFinding } from '../../ops/recall.js';

type Recall = Extract<Assertion, { kind: 'recall' }>;

/**
 * Judged over the itemised results, never the raw text: a target that echoes the query
 * ("No results found for: pnpm") returns no item, and no item can satisfy `contains`. Without an
 * itemisation, an answer holding a text that is part of the query cannot be judged either way.
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
  // the fuzzer reads its recall steps by the same rule (ops/recall.ts recallFinds)
  const has = a.contains !== undefined ? recallFinds(r, a.query, a.contains) : undefined;
  const hasNot = a.not_contains !== undefined ? recallFinds(r, a.query, a.not_contains) : undefined;
  // a refused or unreadable recall is not an empty one: not_contains would pass over the memory itself
  for (const f of [has, hasNot])
    if (f && 'cannotTell' in f) return judgment(a, 'error', clip(r.text, SHOWN), expected, f.cannotTell);
  const found = (f: RecallFinding | undefined) => f !== undefined && 'found' in f && f.found;
  const ok = (has === undefined || found(has)) && !found(hasNot);
  const items = r.items;
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
