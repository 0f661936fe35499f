import type { Assertion } from '../../scenario/schema.js';
import type { JudgeContext } from '../context.js';
import { decided, judgment, type Judgment } from '../judgment.js';
import { memoriesViewProblem } from '../store-view.js';
import { clip } from '../../util/text.js';

type Durable = Extract<Assertion, { kind: 'durable' }>;

interface Write {
  seq: number;
  stage: string;
  step: number;
  op: string;
  memory: string;
  content: string;
  acknowledged: number;
  killed: number;
}

/** What the memory should be as the cell's acknowledged writes left it. */
interface Expect {
  op: string;
  content: string;
  seq: number;
  /** a later write to it was in flight when the server was killed: it may or may not have landed */
  unsettled: boolean;
}

const EXPECTED = 'every acknowledged write holds: stored texts live, forgotten ones gone';

/**
 * Every write memeval issued that the target acknowledged holds in the store: the text of the
 * last acknowledged remember or update of each memory is in a live memory, and a memory whose
 * last acknowledged write is a forget is in none. A write never answered (the server was killed
 * while it was in flight) is not a promise the target made: it is listed, and the memory it
 * touched is not judged. Refused writes change nothing.
 */
export function judgeDurable(a: Durable, ctx: JudgeContext): Judgment {
  const db = ctx.evidence.db;
  let writes: Write[];
  try {
    writes = db.prepare('SELECT * FROM writes ORDER BY seq').all() as Write[];
  } catch (e) {
    return judgment(
      a,
      'error',
      null,
      EXPECTED,
      `writes: ${(e as Error).message} (evidence without memeval's record of its writes)`,
    );
  }
  const unreadable = memoriesViewProblem(db);
  if (unreadable) return judgment(a, 'error', null, EXPECTED, unreadable);
  const expect = new Map<string, Expect>();
  for (const w of writes) {
    if (w.acknowledged) expect.set(w.memory, { op: w.op, content: w.content, seq: w.seq, unsettled: false });
    else if (w.killed) {
      const e = expect.get(w.memory);
      if (e) e.unsettled = true;
    }
  }
  const acknowledged = writes.filter((w) => w.acknowledged).length;
  if (!acknowledged)
    return judgment(
      a,
      'abstain',
      null,
      EXPECTED,
      `none of the ${writes.length} write(s) memeval issued was acknowledged: there is nothing whose durability could be checked`,
    );
  const norm = (t: string) => {
    const s = String(t).replace(/\s+/g, ' ').trim();
    return a.case_sensitive ? s : s.toLowerCase();
  };
  const live = (
    db.prepare('SELECT CAST(id AS TEXT) AS id, content FROM memories WHERE coalesce(is_deleted, 0) = 0').all() as {
      id: string;
      content: string | null;
    }[]
  ).map((m) => ({ id: m.id, text: norm(m.content ?? '') }));
  const holding = (content: string) => live.filter((m) => m.text.includes(norm(content))).map((m) => m.id);
  const lost: string[] = [];
  const back: string[] = [];
  const held: string[] = [];
  const unsettled: string[] = [];
  // an empty text is in every row: looking for it would check nothing
  const blank: string[] = [];
  const shown = (e: Expect) => `${e.op} ${JSON.stringify(clip(e.content, 80))} (writes.seq ${e.seq})`;
  // a forgotten text inside a memory that must stay (forget "likes tea", keep "likes tea with
  // milk") is that memory's, not the forgotten one back
  const kept = [...expect.values()]
    .filter((e) => !e.unsettled && e.op !== 'forget')
    .map((e) => norm(e.content))
    .filter(Boolean);
  const backIn = (content: string) =>
    holding(content).filter((id) => {
      const text = live.find((m) => m.id === id)!.text;
      return !kept.some((k) => k.includes(norm(content)) && text.includes(k));
    });
  for (const e of expect.values()) {
    if (e.unsettled) {
      unsettled.push(shown(e));
      continue;
    }
    if (!norm(e.content)) {
      blank.push(shown(e));
      continue;
    }
    const ids = e.op === 'forget' ? backIn(e.content) : holding(e.content);
    if (e.op === 'forget')
      ids.length ? back.push(`${shown(e)}: live again in memory ${ids.join(', ')}`) : held.push(shown(e));
    else ids.length ? held.push(`${shown(e)} in memory ${ids[0]}`) : lost.push(shown(e));
  }
  if (!held.length && !lost.length && !back.length)
    return judgment(
      a,
      'abstain',
      null,
      EXPECTED,
      [
        unsettled.length &&
          `every acknowledged write was followed by one in flight when the server was killed: nothing settled to check (${unsettled.join('; ')})`,
        blank.length && `acknowledged write(s) with an empty text, which every row contains: ${blank.join('; ')}`,
      ]
        .filter(Boolean)
        .join('; '),
    );
  const inFlight = writes.filter((w) => w.killed).map((w) => `${w.op} ${JSON.stringify(clip(w.content, 60))}`);
  const notes = [
    inFlight.length && `never answered (the server was killed first), not judged: ${inFlight.join('; ')}`,
    unsettled.length && `a later write was in flight at a kill, not judged: ${unsettled.join('; ')}`,
    blank.length && `an empty text, in every row, not judged: ${blank.join('; ')}`,
  ].filter(Boolean);
  const problems = [
    lost.length && `acknowledged and lost: ${lost.join('; ')}`,
    back.length && `forgotten and back: ${back.join('; ')}`,
  ].filter(Boolean);
  return decided(a, !lost.length && !back.length, {
    actual: {
      lost: lost.length,
      back: back.length,
      held: held.length,
      not_judged: unsettled.length + inFlight.length + blank.length,
    },
    expected: EXPECTED,
    detail: [...problems, ...notes].join('; ') || `${held.length} acknowledged write(s) hold`,
    observed: `${held.length + lost.length + back.length} memory(ies) whose last acknowledged write was checked against the ${live.length} live row(s) of the memories view (${acknowledged} of ${writes.length} write(s) acknowledged): held ${held.length}, lost ${lost.length}, forgotten but back ${back.length}`,
  });
}
