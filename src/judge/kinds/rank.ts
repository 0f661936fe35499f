import type { Assertion } from '../../scenario/schema.js';
import type { JudgeContext } from '../context.js';
import { decided, judgment, type Judgment } from '../judgment.js';
import { unreadableDetail } from '../../ops/recall.js';

export type RankAssertion = Extract<Assertion, { kind: 'rank' }>;

/** One recall result as the target itemises it. */
export interface RecallItem {
  id?: string;
  text: string;
}

export interface RankEnv {
  /**
   * itemised results (null when the target declares no itemisation), plus the raw text; `unreadable`
   * (with its detail) when the recall was refused or its text holds none of the declared forms
   */
  recall?: (query: string) => Promise<{ items: RecallItem[] | null; text: string; unreadable?: string }>;
  /** the memories scenario refs name: id as captured and content as seeded */
  memory: (ref: string) => { id: string; content: string } | undefined;
}

const norm = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();

/** Targets often shorten long memories in search results ("…pool size is 20 per se..."): a prefix this long still names one memory. */
const PREFIX = 40;

/** The id as a whole token of the text: `note-1` is not in an item that names `note-12`. */
function holdsId(text: string, id: string): boolean {
  const idChar = /[a-z0-9_-]/;
  for (let at = text.indexOf(id); at !== -1; at = text.indexOf(id, at + 1))
    if (!idChar.test(text[at - 1] ?? ' ') && !idChar.test(text[at + id.length] ?? ' ')) return true;
  return false;
}

/**
 * 0-based position of a memory among the items: the item carries its captured id (6+ characters,
 * so a short id cannot match by accident), its whole content, or, for a shortened listing, the
 * first 40 characters of its content.
 */
export function positionOf(items: RecallItem[], m: { id: string; content: string }): number {
  const content = norm(m.content);
  const prefix = content.length > PREFIX ? content.slice(0, PREFIX) : content;
  return items.findIndex((it) => {
    if (m.id && it.id) return it.id === m.id;
    const text = norm(it.text);
    return (m.id.length >= 6 && holdsId(text, m.id.toLowerCase())) || text.includes(prefix);
  });
}

/**
 * Where `memory` lands in the recall results for `query`: within the first `top_k`, and/or above
 * `before` (which may also be absent). A recall that returned nothing fails; unknown refs error.
 */
export async function judgeRank(a: RankAssertion, env: RankEnv): Promise<Judgment> {
  const ref = (r: string) => r.replace(/^\$ref:/, '');
  const expected = [
    a.top_k !== undefined && `${a.memory} ${a.absent ? 'not ' : ''}within the first ${a.top_k}`,
    a.before !== undefined && `${a.memory} before ${a.before}`,
    a.max_results !== undefined && `at most ${a.max_results} result(s)`,
  ]
    .filter(Boolean)
    .join(' and ');
  const m = a.memory !== undefined ? env.memory(ref(a.memory)) : undefined;
  if (a.memory !== undefined && !m)
    return judgment(a, 'error', null, expected, `no memory named ${a.memory} was seeded or stored`);
  const other = a.before !== undefined ? env.memory(ref(a.before)) : undefined;
  if (a.before !== undefined && !other)
    return judgment(a, 'error', null, expected, `no memory named ${a.before} was seeded or stored`);
  if (!env.recall) return judgment(a, 'abstain', null, expected, 'no recall probe available in this phase');
  const r = await env.recall(a.query);
  // zero items from a recall nobody could read would pass max_results and absent over the memory itself
  if (r.unreadable) return judgment(a, 'error', { results: null }, expected, r.unreadable);
  if (!r.items)
    return judgment(
      a,
      'abstain',
      null,
      expected,
      'the target does not declare how its recall results are itemised: rank cannot be judged',
    );
  const problems: string[] = [];
  const actual: Record<string, unknown> = { results: r.items.length };
  if (a.max_results !== undefined && r.items.length > a.max_results)
    problems.push(
      `${r.items.length} result(s), more than ${a.max_results}: ${r.items
        .slice(0, 3)
        .map((i) => JSON.stringify(i.text.slice(0, 80)))
        .join(', ')}`,
    );
  // nothing returned: the memory is missing, but nothing outranked it; say so, not the stage's "outranked"
  const empty =
    m !== undefined && r.items.length === 0 && (other !== undefined || (a.top_k !== undefined && !a.absent));
  if (empty)
    problems.push(`${RECALL_EMPTY}: ${a.memory} is not among the results, so it was neither ranked nor outranked`);
  else if (m) {
    const pos = positionOf(r.items, m);
    actual.position = pos < 0 ? null : pos + 1;
    if (a.top_k !== undefined) {
      const within = pos >= 0 && pos < a.top_k;
      if (a.absent && within) problems.push(`${a.memory} is result ${pos + 1}, within the first ${a.top_k}`);
      if (!a.absent && !within)
        problems.push(
          pos < 0
            ? `${a.memory} is not among the ${r.items.length} result(s)`
            : `${a.memory} is result ${pos + 1}, not within the first ${a.top_k}`,
        );
    }
    if (other) {
      const q = positionOf(r.items, other);
      actual.before_position = q < 0 ? null : q + 1;
      if (pos < 0) problems.push(`${a.memory} is not among the results, so it cannot rank above ${a.before}`);
      else if (q >= 0 && q < pos)
        problems.push(`${a.before} (result ${q + 1}) ranks above ${a.memory} (result ${pos + 1})`);
    }
  }
  const j = decided(a, !problems.length, {
    actual,
    expected,
    detail: problems.length ? problems.join('; ') : `recall "${a.query}": ${r.items.length} result(s)`,
    observed: `the stored probe of "${a.query}": ${r.items.length} itemised result(s)`,
  });
  return empty ? { ...j, not_observed: RECALL_EMPTY } : j;
}

const RECALL_EMPTY = 'the recall returned nothing';

/** `rank` over the itemised results of a recall probe run after the snapshot. */
export function judgeRankKind(a: RankAssertion, ctx: JudgeContext): Promise<Judgment> {
  const recall = ctx.recall;
  return judgeRank(a, {
    recall:
      recall &&
      (async (q) => {
        const r = await recall(q);
        return {
          items: r.itemised ? r.items.map((text) => ({ text })) : null,
          text: r.text,
          unreadable: r.unreadable && unreadableDetail(q, r),
        };
      }),
    memory: ctx.memory ?? (() => undefined),
  });
}
