import type { Assertion } from '../../scenario/schema.js';
import { describeSightings, findEverywhere } from '../absent.js';
import type { JudgeContext } from '../context.js';
import { judgment, type Judgment } from '../judgment.js';

type Absent = Extract<Assertion, { kind: 'absent' }>;

export function judgeAbsent(a: Absent, ctx: JudgeContext): Judgment {
  const found = findEverywhere(ctx.evidence.db, ctx.evidence.storeFiles, a.text, a.case_sensitive);
  return found.length
    ? judgment(a, 'fail', `found in ${describeSightings(found)}`, `"${a.text}" nowhere`, describeSightings(found))
    : judgment(a, 'pass', 'nowhere', `"${a.text}" nowhere`, 'checked memories view, every store table column, raw store bytes');
}
