import { dirname } from 'node:path';
import { z } from 'zod';
import { scriptedJudgeSchema } from '../../core/scripted-judge.js';
import { InputError } from '../../util/errors.js';
import { parseWith, readJson5File } from '../../util/json5-file.js';
import { GROUNDED_CHECKS, LLM_CHECKS, LLM_SUBJECTS, llmProblems } from '../../scenario/llm-schema.js';

/** One labelled case: what the judge is shown, what it is asked, and the verdict a person gave. */
export const calibrationCaseSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'lowercase letters, digits and -'),
  group: z.string().min(1).optional().describe('a label to break the figures down by (noise, secret, ...)'),
  check: z.enum(LLM_CHECKS),
  subject: z.enum(LLM_SUBJECTS).default('memories'),
  items: z.array(z.string()).describe('the memories (or recall results) the judge is shown'),
  query: z.string().min(1).optional(),
  fact: z.string().min(1).optional(),
  criteria: z.string().min(1).optional(),
  topics: z.array(z.string().min(1)).min(1).optional(),
  min_relevant: z.number().min(0).max(1).default(0.5),
  recalled: z
    .array(z.string())
    .optional()
    .describe('faithful, hallucination: the results of the recall calls the agent made (items is its answer)'),
  prompts: z
    .array(z.string().min(1))
    .optional()
    .describe("faithful, hallucination: the prompts of the answer's conversation"),
  expected: z.enum(['pass', 'fail']),
  why: z.string().min(1).optional().describe("the labeller's reason"),
  scripted: scriptedJudgeSchema.optional(),
});
export type CalibrationCase = z.infer<typeof calibrationCaseSchema>;

export const calibrationFileSchema = z.strictObject({
  $schema: z.string().optional(),
  schema_version: z.literal(1),
  title: z.string().min(1),
  description: z.string().optional(),
  /** what the scripted judge answers for every case without its own `scripted` */
  scripted: scriptedJudgeSchema.optional(),
  min_confidence: z.number().min(0).max(1).default(0.6),
  cases: z.array(calibrationCaseSchema).min(1),
});
export type CalibrationFile = z.infer<typeof calibrationFileSchema>;

export function loadCalibrationFile(file: string): CalibrationFile & { dir: string } {
  const data = parseWith(file, readJson5File(file), calibrationFileSchema);
  const problems: string[] = [];
  const seen = new Set<string>();
  data.cases.forEach((c, i) => {
    if (seen.has(c.id)) problems.push(`${file}: cases[${i}].id: "${c.id}" is used twice`);
    seen.add(c.id);
    for (const p of llmProblems(c)) problems.push(`${file}: cases[${i}] (${c.id}): ${p}`);
    const grounded = GROUNDED_CHECKS.has(c.check);
    if (grounded && (c.recalled === undefined || c.prompts === undefined))
      problems.push(
        `${file}: cases[${i}] (${c.id}): check "${c.check}" needs \`recalled\` (the recall results, [] for none) and \`prompts\``,
      );
    if (!grounded && (c.recalled !== undefined || c.prompts !== undefined))
      problems.push(
        `${file}: cases[${i}] (${c.id}): \`recalled\` and \`prompts\` are for checks faithful and hallucination`,
      );
  });
  if (problems.length) throw new InputError(problems.join('\n'), problems);
  return { ...data, dir: dirname(file) };
}
