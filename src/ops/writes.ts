import type { LeafStep } from '../scenario/schema.js';
import { STEP_OPS } from '../scenario/step-ops.js';

/**
 * One write op memeval issued (a seed, a setup or phase step, a call of a parallel step) and how
 * the target answered it: acknowledged (every call of the op answered without error), refused,
 * or never answered because memeval killed the server while it was in flight. The cell keeps
 * them as the evidence table `writes`, which the `durable` judge reads.
 */
export interface WriteRecord {
  stage: 'setup' | 'step';
  /** the step's index in its stage (a seed's index in setup.memories) */
  step: number;
  /** the call's index within a parallel step */
  call?: number;
  op: 'remember' | 'update' | 'forget';
  /** the memory it makes or acts on: its scenario ref, or `#<stage>.<step>[.<call>]` for an unnamed remember */
  memory: string;
  /** the text it stores (remember, update), or the text of the memory it forgets */
  content: string;
  acknowledged: boolean;
  killed: boolean;
}

/** The memory identity and text of a step that writes one memory (remember, update, forget), or undefined. */
export function writeOf(
  step: LeafStep,
  at: { stage: 'setup' | 'step'; step: number; call?: number },
  contentOf: (ref: string) => string | undefined,
): Pick<WriteRecord, 'op' | 'memory' | 'content'> | undefined {
  if (step.op === 'remember')
    return {
      op: 'remember',
      memory: step.ref ?? `#${at.stage}.${at.step}${at.call !== undefined ? `.${at.call}` : ''}`,
      content: step.content,
    };
  if ((step.op === 'update' || step.op === 'forget') && STEP_OPS[step.op].handle === 'needs') {
    const ref = step.memory.replace(/^\$ref:/, '').split('.')[0]!;
    const content = step.op === 'update' ? step.content : contentOf(ref);
    return content === undefined ? undefined : { op: step.op, memory: ref, content };
  }
  return undefined;
}
