import type { CellResult } from '../core/results.js';
import { stageTag } from '../core/stages.js';
import type { MemoryHandle } from '../ops/ops.js';
import type { Assertion } from '../scenario/schema.js';
import { runJudgesBounded } from './bounded.js';
import type { JudgeContext } from './context.js';
import type { Judgment } from './judgment.js';
import { storedRecall } from './probes.js';
import { promoteLevels } from './strict.js';
import { phaseVerdict, type VerdictInput, type VerdictResult } from './verdict.js';

/** Everything the verdict reads besides the judgments; stored whole, so fields added to VerdictInput flow through. */
export type StoredVerdictInput = Omit<VerdictInput, 'judgments'>;

/** What judges read besides the evidence and what only a live cell has (recall probe, fixture). */
export type JudgeInput = NonNullable<CellResult['judge_input']>;

/** One assertion of a cell: judged now, or a judgment kept as it was (rejudge cannot judge it again). */
export type CellAssertion = { judge: Assertion } | { keep: Judgment };

export interface JudgeCellOptions {
  assertions: CellAssertion[];
  verdictInput: StoredVerdictInput;
  judgeInput: JudgeInput;
  /** the evidence, and what this caller has beyond it (a live cell: fixture, its files) */
  ctx: Omit<JudgeContext, 'memory' | 'transcript' | 'recall' | 'answerContext'>;
  cellDir: string;
}

/**
 * The judge stage, for a live cell and for rejudge alike: judge the assertions against the
 * evidence (recall judges against its stored probes), then the phase verdict from the stored verdict input. Both callers hand in what
 * the cell result keeps (verdict_input, judge_input), so a re-judged verdict is computed from
 * exactly what the live one was.
 */
export async function judgeCell(o: JudgeCellOptions): Promise<VerdictResult & { judgments: Judgment[] }> {
  const refs = new Map(Object.entries(o.judgeInput.memory_refs));
  // recall judges read the probes the evidence keeps, never the target: live and rejudge read the same
  const ctx: JudgeContext = {
    ...o.ctx,
    recall: storedRecall(o.ctx.evidence),
    transcript: o.judgeInput.transcript,
    answerContext: o.judgeInput.answer_context,
    memory: (ref) => refs.get(ref),
  };
  const toJudge = promoteLevels(
    o.assertions.flatMap((x) => ('judge' in x ? [x.judge] : [])),
    o.ctx.judgePool?.strict,
  );
  const judged = await runJudgesBounded(toJudge, ctx, o.cellDir);
  let k = 0;
  // a judgment carries its assertion's stage, so every reader of the cell groups by it (core/stages.ts),
  // and whether it is a precondition, so the verdict (live or rejudged) reads it from the judgment alone
  const judgments = o.assertions.map((x) => ('judge' in x ? tagged(judged[k++], x.judge) : x.keep));
  return { ...phaseVerdict({ ...o.verdictInput, judgments }), judgments };
}

function tagged(j: Judgment, a: Assertion): Judgment {
  const stage = stageTag(a.stage);
  return { ...j, ...(stage ? { stage } : {}), ...(a.precondition ? { precondition: true } : {}) };
}

/** The scenario refs' memories as the cell ended: the id captured from the target, the content after any update. */
export function memoryRefs(handles: ReadonlyMap<string, MemoryHandle>): JudgeInput['memory_refs'] {
  return Object.fromEntries([...handles].map(([ref, h]) => [ref, { id: h.id, content: h.content }]));
}
