import { execBounded } from '../../util/bounded-regex.js';
import type { AnswerRule } from './types.js';

/**
 * The first rule whose every `contains` occurs in the request text (case-insensitive) and whose
 * `capture` regex (if any) matches, else the default. `$1`.. in the answer take the captured groups.
 */
export function chooseAnswer(
  rules: AnswerRule[],
  fallback: string,
  texts: string[],
): { answer: string; matched: string; hold?: AnswerRule['hold'] } {
  const hay = texts.join('\n').toLowerCase();
  const text = texts.join('\n');
  for (const [i, r] of rules.entries()) {
    if (!r.contains.every((c) => hay.includes(c.toLowerCase()))) continue;
    let answer = r.answer;
    if (r.capture) {
      const m = execBounded(new RegExp(r.capture, 'i'), text, `provider rule ${r.name ?? i} capture`);
      if (!m) continue;
      answer = answer.replace(/\$(\d)/g, (_, d: string) => m[Number(d)] ?? '');
    }
    return { answer, matched: r.name ?? `rule ${i}`, hold: r.hold };
  }
  return { answer: fallback, matched: 'default' };
}

/** ms until the hold is over (5 ms into the next second, clear of the boundary). */
export function holdMs(hold: AnswerRule['hold'], now = Date.now()): number {
  return hold === 'next-second' ? 1005 - (now % 1000) : 0;
}
