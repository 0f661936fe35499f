import { z } from 'zod';
import { messageOf } from '../../util/errors.js';

/**
 * What a judge model must answer: one JSON object. `verdict` is the decision, `confidence` how
 * sure the model is (0..1), `reasoning` why, and `score` an optional number for numeric checks.
 */
export const JUDGE_VERDICTS = ['pass', 'fail'] as const;
export type JudgeVerdict = (typeof JUDGE_VERDICTS)[number];

export const judgeAnswerSchema = z.object({
  verdict: z.enum(JUDGE_VERDICTS),
  confidence: z.number().min(0).max(1),
  reasoning: z.string(),
  score: z.number().optional(),
  /** for categorical checks: one of the categories the prompt offered */
  category: z.string().optional(),
});
export type JudgeAnswer = z.infer<typeof judgeAnswerSchema>;

export type ParseResult = { ok: true; answer: JudgeAnswer } | { ok: false; problem: string };

/** Remove reasoning blocks some models emit before the answer (`<think>`, `<thinking>`, `<reasoning>`). */
export function stripThinking(text: string): string {
  let out = text.replace(/<(think|thinking|reasoning)>[\s\S]*?<\/\1>/gi, '');
  // an unclosed block (cut off at max tokens) hides everything after it: drop it all
  out = out.replace(/<(think|thinking|reasoning)>[\s\S]*$/i, '');
  return out;
}

/** Unwrap Markdown code fences, keeping their bodies (```json … ``` or bare ```). */
export function stripFences(text: string): string {
  return text.replace(/```[A-Za-z0-9_-]*[ \t]*\r?\n?([\s\S]*?)```/g, '$1');
}

/**
 * Every balanced top-level `{…}` in the text, in order, honouring strings and escapes so a
 * brace inside the reasoning does not cut the object short.
 */
export function jsonObjectCandidates(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c === '\\') escaped = true;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"' && depth > 0) inString = true;
    else if (c === '{') {
      if (depth === 0) start = i;
      depth++;
    } else if (c === '}' && depth > 0) {
      depth--;
      if (depth === 0) out.push(text.slice(start, i + 1));
    }
  }
  return out;
}

function normalise(v: unknown): unknown {
  // models write "PASS" or "Pass"; the verdict vocabulary itself is fixed, so only case is forgiven
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const o = { ...(v as Record<string, unknown>) };
    if (typeof o.verdict === 'string') o.verdict = o.verdict.trim().toLowerCase();
    return o;
  }
  return v;
}

/** What an answer decides: two answers that agree on these are one answer. */
const decisionOf = (a: JudgeAnswer) => JSON.stringify([a.verdict, a.score ?? null, a.category ?? null]);
const isOverall = (v: unknown) =>
  Boolean(v && typeof v === 'object' && (v as Record<string, unknown>).overall === true);

/**
 * Parse a judge model's raw answer, failing closed: think blocks and fences are removed and every
 * JSON object in the text is validated. One valid object is the answer. Several (a judge that
 * writes one per item, then an overall one) are one answer only if they agree on the decision
 * (verdict, score, category; the last one's confidence and reasoning are kept), or if exactly
 * one is marked `"overall": true`; otherwise there is no answer, since which object decides
 * cannot be known. Nothing else counts: prose such as "INCORRECT" or "the answer passes" is
 * never read as a verdict.
 */
export function parseJudgeAnswer(raw: string): ParseResult {
  const text = stripFences(stripThinking(raw));
  const candidates = jsonObjectCandidates(text);
  if (!candidates.length) return { ok: false, problem: 'no JSON object in the answer' };
  const problems: string[] = [];
  const valid: { answer: JudgeAnswer; overall: boolean }[] = [];
  for (const c of candidates) {
    let value: unknown;
    try {
      value = JSON.parse(c);
    } catch (e) {
      problems.push(`invalid JSON: ${messageOf(e)}`);
      continue;
    }
    const r = judgeAnswerSchema.safeParse(normalise(value));
    if (r.success) valid.push({ answer: r.data, overall: isOverall(value) });
    else problems.push(r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; '));
  }
  if (!valid.length) return { ok: false, problem: problems.join(' | ') };
  const marked = valid.filter((v) => v.overall);
  const deciding = marked.length ? marked : valid;
  if (new Set(deciding.map((v) => decisionOf(v.answer))).size === 1)
    return { ok: true, answer: deciding[deciding.length - 1].answer };
  const verdicts = deciding.map((v) => v.answer.verdict).join(', ');
  return {
    ok: false,
    problem: marked.length
      ? `${marked.length} JSON answers marked "overall": true disagree (${verdicts})`
      : `${deciding.length} JSON answers disagree (${verdicts}) and none is marked "overall": true: give one answer, or mark the overall one with "overall": true`,
  };
}
