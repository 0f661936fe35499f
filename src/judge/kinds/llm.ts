import type { Assertion } from '../../scenario/schema.js';
import type { JudgeContext } from '../context.js';
import type { Judgment } from '../judgment.js';
import { judgeLlm } from '../llm/judge-llm.js';
import { unreadableDetail } from '../../ops/recall.js';
import { GROUNDED_CHECKS } from '../../scenario/llm-schema.js';
import { readGrounding, type Grounding } from '../llm/grounding.js';
import { messageOf } from '../../util/errors.js';

type Llm = Extract<Assertion, { kind: 'llm' }>;

/** An `llm` assertion over this cell's evidence: the subject comes from the store, a recall probe, the answer or the fixture. */
export async function judgeLlmKind(a: Llm, ctx: JudgeContext): Promise<Judgment> {
  const recall = ctx.recall;
  const model = ctx.judgePool ? await ctx.judgePool.modelFor(a) : a.model ? null : (ctx.judgeModel ?? null);
  return judgeLlm(a, {
    model,
    scenarioDir: ctx.scenarioDir,
    minConfidence: ctx.judgePool?.strict.minConfidence,
    sources: {
      grounding: GROUNDED_CHECKS.has(a.check) ? groundingOf(ctx) : undefined,
      db: ctx.evidence.db,
      recall:
        recall &&
        (async (q) => {
          const r = await recall(q);
          return {
            items: r.itemised ? r.items : null,
            text: r.text,
            unreadable: r.unreadable && unreadableDetail(q, r),
          };
        }),
      answer: ctx.transcript,
      fixtureDir: ctx.fixtureDir,
    },
  });
}

/** What the agent recalled in the answer's conversation, read from the evidence `calls` table (rejudge reads the same). */
function groundingOf(ctx: JudgeContext): Grounding | { problem: string } | undefined {
  if (!ctx.answerContext) return undefined;
  try {
    return readGrounding(ctx.evidence.db, ctx.answerContext);
  } catch (e) {
    return { problem: messageOf(e) };
  }
}
