import type { Assertion } from '../../scenario/schema.js';
import { SHOWN, textMatch, type JudgeContext } from '../context.js';
import { clip } from '../../util/text.js';
import { decided, judgment, type Judgment } from '../judgment.js';
import { messageOf } from '../../util/errors.js';

type Transcript = Extract<Assertion, { kind: 'transcript' }>;

export function judgeTranscript(a: Transcript, ctx: JudgeContext): Judgment {
  const expected = [
    a.contains !== undefined && `contains "${a.contains}"`,
    a.not_contains !== undefined && `does not contain "${a.not_contains}"`,
    a.regex !== undefined && `matches /${a.regex}/`,
  ]
    .filter(Boolean)
    .join(' and ');
  if (ctx.transcript === undefined) return judgment(a, 'abstain', null, expected, 'no agent transcript in this cell');
  const t = ctx.transcript;
  // an empty answer says nothing: `not_contains` would pass over it
  if (!t.trim()) return judgment(a, 'error', '', expected, "the agent's final answer is empty: nothing to judge");
  const ok =
    (a.contains === undefined || textMatch(t, a.contains, a.case_sensitive)) &&
    (a.not_contains === undefined || !textMatch(t, a.not_contains, a.case_sensitive)) &&
    (a.regex === undefined || new RegExp(a.regex, a.case_sensitive ? '' : 'i').test(t));
  return decided(a, ok, {
    actual: clip(t, SHOWN),
    expected,
    detail: 'final answer',
    observed: `the agent's final answer (${t.length} character(s))`,
  });
}

/** Load-time check: the regex compiles. */
export function checkTranscript(a: Transcript): string[] {
  if (a.regex === undefined) return [];
  try {
    new RegExp(a.regex, a.case_sensitive ? '' : 'i');
    return [];
  } catch (e) {
    return [`regex: ${messageOf(e)}`];
  }
}
