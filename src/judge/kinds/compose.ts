import type { CascadeAssertion, JuryAssertion } from '../../scenario/schema.js';
import { judgeCascade, judgeJury } from '../compose.js';
import type { JudgeContext } from '../context.js';
import type { Judgment } from '../judgment.js';

/** Jury and cascade members are judged through the registry like top-level assertions. */
export type JudgeAny = (a: import('../../scenario/schema.js').Assertion, ctx: JudgeContext) => Promise<Judgment>;

export const juryKind = (judgeAny: JudgeAny) => (a: JuryAssertion, ctx: JudgeContext) => judgeJury(a, (m) => judgeAny(m, ctx));
export const cascadeKind = (judgeAny: JudgeAny) => (a: CascadeAssertion, ctx: JudgeContext) => judgeCascade(a, (m) => judgeAny(m, ctx));
