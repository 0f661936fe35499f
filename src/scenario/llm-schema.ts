import { z } from 'zod';
import { scriptedJudgeSchema } from '../core/scripted-judge.js';

/** What an `llm` assertion asks its judge; one prompt template per check in assets/judge-prompts. */
export const LLM_CHECKS = [
  'rubric',
  'relevance',
  'ranking',
  'topics',
  'contains-fact',
  'no-such-fact',
  'faithful',
  'hallucination',
] as const;
export type LlmCheck = (typeof LLM_CHECKS)[number];

/**
 * Checks that judge the agent's answer against what it recalled in that conversation and the
 * prompts it was given: they read the recording point's recall calls besides the answer.
 */
export const GROUNDED_CHECKS: ReadonlySet<LlmCheck> = new Set(['faithful', 'hallucination']);

/** What the judge reads. */
export const LLM_SUBJECTS = ['memories', 'recall', 'answer', 'sql', 'files'] as const;
export type LlmSubject = (typeof LLM_SUBJECTS)[number];

export const JUDGE_LEVELS = ['warn', 'fail'] as const;
export type JudgeLevel = (typeof JUDGE_LEVELS)[number];

/** How a judgment is scored: pass/fail, a number within bounds against a threshold, or a category. */
export const scoreSpecSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('boolean') }),
  z
    .strictObject({
      type: z.literal('numeric'),
      min: z.number().default(0),
      max: z.number().default(1),
      threshold: z.number(),
    })
    .refine((s) => s.min < s.max && s.threshold >= s.min && s.threshold <= s.max, {
      message: 'numeric score needs min < max and min <= threshold <= max',
    }),
  z
    .strictObject({
      type: z.literal('categorical'),
      categories: z.array(z.string().min(1)).min(2),
      passing: z.array(z.string().min(1)).min(1),
    })
    .refine((s) => s.passing.every((p) => s.categories.includes(p)), {
      message: 'every `passing` category must be one of `categories`',
    }),
]);
export type ScoreSpec = z.infer<typeof scoreSpecSchema>;

const NEEDS: Record<LlmCheck, (a: LlmFields) => string | null> = {
  rubric: (a) => (a.criteria ? null : 'check "rubric" needs `criteria`'),
  relevance: (a) =>
    a.subject === 'recall' ? null : 'check "relevance" judges recall results: set subject "recall" and a `query`',
  ranking: (a) =>
    a.subject === 'recall' ? null : 'check "ranking" judges recall results: set subject "recall" and a `query`',
  topics: (a) => (a.topics?.length ? null : 'check "topics" needs `topics` (a list)'),
  'contains-fact': (a) => (a.fact ? null : 'check "contains-fact" needs `fact`'),
  'no-such-fact': (a) => (a.fact ? null : 'check "no-such-fact" needs `fact`'),
  faithful: (a) =>
    a.subject === 'answer'
      ? null
      : 'check "faithful" judges the agent\'s answer against what it recalled: set subject "answer" (and phase "real-model")',
  hallucination: (a) =>
    a.subject === 'answer'
      ? null
      : 'check "hallucination" judges the agent\'s answer against what it recalled: set subject "answer" (and phase "real-model")',
};

interface LlmFields {
  subject: LlmSubject;
  check: LlmCheck;
  query?: string;
  where?: string;
  sql?: string;
  files?: string[];
  criteria?: string;
  fact?: string;
  topics?: string[];
}

/** The fields of an `llm` assertion besides kind/name/phase; the problems a check/subject pair can have. */
export const llmFields = {
  subject: z.enum(LLM_SUBJECTS),
  check: z.enum(LLM_CHECKS),
  where: z.string().min(1).optional().describe('subject memories: a SQL condition over the memories view'),
  query: z.string().min(1).optional().describe('subject recall: the query the recall probe runs'),
  sql: z.string().min(1).optional().describe('subject sql: a read-only SELECT whose rows are judged'),
  files: z.array(z.string().min(1)).min(1).optional().describe('subject files: fixture-relative paths'),
  criteria: z.string().min(1).optional(),
  fact: z.string().min(1).optional(),
  topics: z.array(z.string().min(1)).min(1).optional(),
  min_relevant: z.number().min(0).max(1).default(0.5).describe('relevance: the share of results that must be relevant'),
  level: z.enum(JUDGE_LEVELS).default('warn'),
  min_confidence: z.number().min(0).max(1).default(0.6),
  max_items: z.number().int().positive().default(30),
  max_chars: z.number().int().positive().default(400),
  max_grounded_chars: z
    .number()
    .int()
    .positive()
    .default(8000)
    .describe(
      'faithful, hallucination: the answer and each recall result are shown up to this many characters; a longer answer is an error (claims past a cut would go unjudged), a longer result is cut and marked',
    ),
  prompt: z
    .string()
    .min(1)
    .optional()
    .describe('a prompt template file (relative to the scenario) replacing the built-in one'),
  model: z
    .string()
    .min(1)
    .optional()
    .describe("this judge's own model (e.g. one juror of several); used only when the run has a judge model"),
  base_url: z.url().optional().describe("the endpoint of this judge's own model"),
  score: scoreSpecSchema.default({ type: 'boolean' }),
  scripted: scriptedJudgeSchema.optional().describe('what the scripted judge answers (--judge-model scripted)'),
};

export function llmProblems(a: LlmFields): string[] {
  const out: string[] = [];
  const need = NEEDS[a.check](a);
  if (need) out.push(need);
  if (a.subject === 'recall' && !a.query) out.push('subject "recall" needs `query`');
  if (a.subject === 'sql' && !a.sql) out.push('subject "sql" needs `sql`');
  if (a.subject === 'files' && !a.files) out.push('subject "files" needs `files`');
  if (a.where !== undefined && a.subject !== 'memories') out.push('`where` narrows subject "memories" only');
  return out;
}

/** `rank`: where a memory lands in a recall's itemised results. */
export const rankFields = {
  query: z.string().min(1),
  memory: z.string().min(1).optional().describe('$ref:<name> of the memory to look for'),
  max_results: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe('at most this many results (0: the query must find nothing)'),
  top_k: z.number().int().positive().optional().describe('the memory is among the first top_k results'),
  before: z.string().min(1).optional().describe('$ref:<name> of a memory it must rank above (or the other is absent)'),
  absent: z.boolean().default(false).describe('the memory must NOT be among the first top_k results (or at all)'),
};
