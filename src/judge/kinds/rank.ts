import type { Assertion } from '../../scenario/schema.js';
import type { JudgeContext } from '../context.js';
import type { Judgment } from '../judgment.js';
import { judgeRank } from '../rank.js';
import { unreadableDetail } from '../../ops/recall.js';

type Rank = Extract<Assertion, { kind: 'rank' }>;

/** `rank` over the itemised results of a recall probe run after the snapshot. */
export function judgeRankKind(a: Rank, ctx: JudgeContext): Promise<Judgment> {
  const recall = ctx.recall;
  return judgeRank(a, {
    recall: recall && (async (q) => {
      const r = await recall(q);
      return { items: r.itemised ? r.items.map((text) => ({ text })) : null, text: r.text, unreadable: r.unreadable && unreadableDetail(q, r) };
    }),
    memory: ctx.memory ?? (() => undefined),
  });
}
