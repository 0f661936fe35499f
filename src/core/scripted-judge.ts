import { z } from 'zod';

/**
 * What memeval's scripted model answers when it stands in for a judge model: declared on an
 * `llm` assertion (or a calibration file) so CI gets deterministic verdicts over real HTTP.
 * A leaf module: the scenario schema and the scripted model server both read it.
 */

/** Ways real models wrap or break their JSON answer, so the parser is tested end to end. */
export const JUDGE_QUIRKS = [
  'none',
  /** a <think>…</think> block (with a decoy verdict) before the JSON */
  'think',
  /** the JSON inside a ```json fence */
  'fence',
  /** prose before and after the JSON, including the word INCORRECT */
  'prose',
  /** broken JSON on every attempt: the judgment must end as error */
  'invalid-json',
  /** broken JSON on the first attempt only: the retry must recover */
  'invalid-once',
  /** valid JSON with the verdict under another field name: fails validation on every attempt */
  'wrong-field',
  /** only a bare word such as "CORRECT": never read as a verdict */
  'bare-word',
  /** one object per item (the first with the decoy verdict), then the answer marked `"overall": true` */
  'items',
  /** the same without the `overall` mark: disagreeing objects are no answer, on every attempt */
  'items-unmarked',
] as const;
export type JudgeQuirk = (typeof JUDGE_QUIRKS)[number];

const verdict = z.enum(['pass', 'fail']);
const answer = {
  verdict: verdict.optional(),
  /** one verdict per repeat (cycled): how a flaky judge is simulated for the flip rate */
  verdicts: z.array(verdict).min(1).optional(),
  confidence: z.number().min(0).max(1).default(0.9),
  score: z.number().optional(),
  category: z.string().optional(),
  reasoning: z.string().optional(),
  quirk: z.enum(JUDGE_QUIRKS).default('none'),
};

export const scriptedJudgeRuleSchema = z.strictObject({
  /** case-insensitive substring of the rendered prompt; the first rule that matches decides */
  when: z.string().min(1),
  ...answer,
});

export const scriptedJudgeSchema = z.strictObject({
  ...answer,
  rules: z.array(scriptedJudgeRuleSchema).default([]),
  /**
   * faithful, hallucination prompts: when no rule matches, decide by a lexical baseline (every
   * name, number and version of the answer occurs in the recalled results or the prompts), not
   * by `verdict`; a prompt without the fenced subject/recalled/prompts blocks gets no verdict
   */
  grounding: z.boolean().default(false),
});
export type ScriptedJudge = z.infer<typeof scriptedJudgeSchema>;
export type ScriptedJudgeInput = z.input<typeof scriptedJudgeSchema>;

/** The request header that carries the script (base64 JSON) to the scripted model server. */
export const SCRIPTED_JUDGE_HEADER = 'x-memeval-judge-script';

export interface ScriptedJudgeEnvelope {
  script: ScriptedJudge;
  /** 0-based repeat of the same question (calibration --repeat) */
  repeat: number;
}
