import type { AnswerRule } from './types.js';

/** The first rule whose every `contains` occurs in the request text (case-insensitive), else the default. */
export function chooseAnswer(rules: AnswerRule[], fallback: string, texts: string[]): { answer: string; matched: string } {
  const hay = texts.join('\n').toLowerCase();
  for (const [i, r] of rules.entries()) {
    if (r.contains.every((c) => hay.includes(c.toLowerCase()))) return { answer: r.answer, matched: r.name ?? `rule ${i}` };
  }
  return { answer: fallback, matched: 'default' };
}
