import { z } from 'zod';

/**
 * Fields of the `command`, `plugin` and `budget` assertion kinds (schema.ts adds the kind,
 * name, phase and description every assertion has).
 */

const COMPARATOR = z.enum(['eq', 'ne', 'gt', 'gte', 'lt', 'lte']);
/** A string that must compile as a regular expression (schema.ts and the target schema use it too). */
export const regexSource = z.string().refine((r) => {
  try {
    new RegExp(r);
    return true;
  } catch {
    return false;
  }
}, 'not a valid regular expression');

/** A value found at a JSON path, compared. */
const jsonCheck = z.strictObject({
  path: z
    .string()
    .regex(
      /^\$((\.[A-Za-z_][\w-]*)|(\[\d+\]))*$/,
      'a JSON path like $.memories[0].content or $.items.length ($ alone is the whole document)',
    )
    .describe('where in the JSON: $, .key, [index]; `.length` of an array or string is its length'),
  op: COMPARATOR.default('eq'),
  value: z.union([z.number(), z.string(), z.boolean(), z.null()]),
});

/** What a command's stdout or output file must hold; every given check must hold. */
export const textChecks = {
  contains: z.string().optional(),
  not_contains: z.string().optional(),
  regex: regexSource.optional(),
  json: jsonCheck.optional().describe('the text parsed as JSON (unparseable: `error`)'),
  case_sensitive: z.boolean().default(false),
};
const textCheck = z.strictObject(textChecks);
export type TextCheck = z.infer<typeof textCheck>;

export const COMMAND_TIMEOUT_MAX_MS = 600_000;

export const commandFields = {
  bin: z
    .string()
    .min(1)
    .optional()
    .describe(
      "a bin the target's npm package declares, or a program a local target's declaration names under `cli` (its own CLI), run with `run` as its arguments; a target without that program makes the cell `unsupported`",
    ),
  run: z
    .array(z.string())
    .min(1)
    .describe(
      'with `bin`: its arguments; without: the program (on PATH, or a path) and its arguments. {{project}}, {{data}}, {{home}}, {{tmp}}, {{fixture}}, {{package_dir}} are filled in',
    ),
  cwd: z.string().default('{{project}}').describe('where it runs (a fixture placeholder path)'),
  timeout_ms: z.number().int().positive().max(COMMAND_TIMEOUT_MAX_MS).default(30_000),
  exit_code: z
    .union([z.number().int().min(0).max(255), z.literal('any')])
    .default(0)
    .describe(
      'the exit status of a run that read what it judges (then its stdout or file checks decide); "any": the exit decides nothing, so a positive stdout or file check (contains, regex, json) must. Any exit not declared here or in failing_exit_codes is `error`, as is a command that cannot start, times out or is killed',
    ),
  failing_exit_codes: z
    .array(z.number().int().min(0).max(255))
    .default([])
    .describe(
      'exits that mean the program found what the check looks for (e.g. a health check that exits 1 on a damaged store): a `fail` that observed it. A usage error (exit 2 for most programs) belongs here only if the program really means it so',
    ),
  stdout: textCheck.optional(),
  output_file: z
    .strictObject({ path: z.string().min(1).describe('a fixture path ({{project}}/…, {{data}}/…)'), ...textChecks })
    .optional()
    .describe('a file the command writes; judged after it ends (absent: `error`)'),
};

export const pluginFields = {
  module: z
    .string()
    .min(1)
    .describe('a JavaScript module (.mjs/.js), relative to the scenario file, exporting `judge(evidence, options)`'),
  options: z
    .record(z.string(), z.unknown())
    .default({})
    .describe('passed to the judge function as its second argument'),
};

/** What a budget may bound, per prompt or over the cell; each is a column of `agent_usage`. */
export const BUDGET_METRICS = [
  'input_tokens',
  'output_tokens',
  'total_tokens',
  'cost_usd',
  'turns',
  'tool_calls',
  'memory_calls',
  'ms',
] as const;
export type BudgetMetric = (typeof BUDGET_METRICS)[number];

export const budgetFields = {
  metric: z.enum(BUDGET_METRICS),
  per: z
    .enum(['prompt', 'cell'])
    .default('prompt')
    .describe('prompt: every prompt must stay within `max`; cell: the sum over the cell'),
  max: z.number().nonnegative(),
  finish_reasons: z
    .array(z.string().min(1))
    .optional()
    .describe('also: every prompt must end with one of these finish reasons (e.g. ["completed"])'),
};
