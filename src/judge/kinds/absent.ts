import type { Assertion } from '../../scenario/schema.js';
import { describeSightings, findEverywhere } from '../absent.js';
import { textMatch, type JudgeContext } from '../context.js';
import { readIfExists } from '../fixture-files.js';
import { judgment, type Judgment } from '../judgment.js';

type Absent = Extract<Assertion, { kind: 'absent' }>;

/** The store (view, every table column, raw bytes), then the fixture files beyond it, each named. */
export function judgeAbsent(a: Absent, ctx: JudgeContext): Judgment {
  const found = findEverywhere(ctx.evidence.db, ctx.evidence.storeFiles, a.text, a.case_sensitive);
  const files = (ctx.files ?? []).filter((f) => textMatch(readIfExists(f.abs) ?? '', a.text, a.case_sensitive)).map((f) => `fixture file ${f.label}`);
  const where = [...(found.length ? [describeSightings(found)] : []), ...files].join('; ');
  const checked = `checked memories view, every store table column, raw store bytes${ctx.files ? `, ${ctx.files.length} fixture file(s) beside the store` : ''}`;
  return where ? judgment(a, 'fail', `found in ${where}`, `"${a.text}" nowhere`, where) : judgment(a, 'pass', 'nowhere', `"${a.text}" nowhere`, checked);
}
