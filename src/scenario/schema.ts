import { z } from 'zod';
import { CLAIMS } from './claims.js';
import type { DeterministicPhase, Phase } from '../core/results.js';

export type { DeterministicPhase, Phase };

/** Target-neutral memory actions. `tool` is the escape hatch for target-specific scenarios. */
export const MEMORY_OPS = ['remember', 'update', 'forget', 'recall', 'curate'] as const;
export type MemoryOp = (typeof MEMORY_OPS)[number];

export const COMPARATORS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte'] as const;
export type Comparator = (typeof COMPARATORS)[number];

export const ASSERTION_PHASES = ['both', 'well-behaved', 'violation', 'real-model'] as const;
export type AssertionPhase = (typeof ASSERTION_PHASES)[number];

const refName = z.string().regex(/^[A-Za-z][A-Za-z0-9_-]*$/, 'a ref name: a letter, then letters, digits, _ or -');
const nonEmpty = z.string().min(1);

const setupMemory = z.strictObject({
  ref: refName,
  content: nonEmpty,
  category: z.string().optional(),
  source: z.string().optional(),
  subject: z.string().optional(),
});

const setupFile = z.strictObject({
  path: nonEmpty.describe('relative to the fixture project; cannot leave it'),
  content: z.string(),
});

const similarity = z.strictObject({
  a: nonEmpty.describe('anchor text, or $ref:<name> for the content of a setup memory or remember step'),
  b: nonEmpty.describe('any text the provider embeds that contains this (case-insensitive) gets `cosine` to the anchor; $ref:<name> allowed'),
  cosine: z.number().min(-1).max(1),
});

const providerRule = z.strictObject({
  name: z.string().optional().describe('shown in provider_calls.matched'),
  contains: z.union([nonEmpty, z.array(nonEmpty).min(1)]).describe('every string must occur in the request messages (case-insensitive); $ref:<name> allowed'),
  capture: z
    .string()
    .refine((r) => {
      try {
        new RegExp(r);
        return true;
      } catch {
        return false;
      }
    }, 'not a valid regular expression')
    .optional()
    .describe('a regex that must also match the request; $1.. in the answer are its groups'),
  hold: z
    .literal('next-second')
    .optional()
    .describe('answer at the start of the next wall-clock second (servers that make ids from the clock)'),
  answer: z.string(),
  phase: z.enum(['both', 'well-behaved', 'violation']).default('both'),
});

/** Scripted answers of the model provider a provider-backed target is pointed at. */
export const scenarioProviderSchema = z.strictObject({
  rules: z.array(providerRule).default([]).describe('first match wins; the target declaration may add rules after these'),
  default: z.string().optional().describe("the answer when no rule matches (else the target's default)"),
});
export type ScenarioProvider = z.infer<typeof scenarioProviderSchema>;

const stepBase = { note: z.string().optional() };

const rememberStep = z.strictObject({
  op: z.literal('remember'),
  ...stepBase,
  ref: refName.optional().describe('name this memory so later steps can use $ref:<name>'),
  content: nonEmpty,
  category: z.string().optional(),
  source: z.string().optional(),
  subject: z.string().optional(),
});
const updateStep = z.strictObject({
  op: z.literal('update'),
  ...stepBase,
  memory: nonEmpty.describe('$ref:<name> of the memory to change'),
  content: nonEmpty,
});
const forgetStep = z.strictObject({
  op: z.literal('forget'),
  ...stepBase,
  memory: nonEmpty.describe('$ref:<name> of the memory to forget'),
});
const recallStep = z.strictObject({
  op: z.literal('recall'),
  ...stepBase,
  query: nonEmpty,
});
const curateStep = z.strictObject({ op: z.literal('curate'), ...stepBase });
const restartStep = z.strictObject({ op: z.literal('restart'), ...stepBase });
const toolStep = z.strictObject({
  op: z.literal('tool'),
  ...stepBase,
  tool: nonEmpty,
  args: z.record(z.string(), z.unknown()).default({}),
});

export const stepSchema = z.discriminatedUnion('op', [
  rememberStep,
  updateStep,
  forgetStep,
  recallStep,
  curateStep,
  restartStep,
  toolStep,
]);
export type Step = z.infer<typeof stepSchema>;
export const STEP_OPS = ['remember', 'update', 'forget', 'recall', 'curate', 'restart', 'tool'] as const;

const comparator = z.enum(COMPARATORS);
const assertionBase = {
  name: nonEmpty,
  phase: z.enum(ASSERTION_PHASES),
  description: z.string().optional(),
};

const countAssertion = z.strictObject({
  kind: z.literal('count'),
  ...assertionBase,
  contains: z.string().optional(),
  source: z.string().optional(),
  category: z.string().optional(),
  case_sensitive: z.boolean().default(false),
  include_deleted: z.boolean().default(false),
  op: comparator,
  value: z.number().int().nonnegative(),
});
const sqlAssertion = z.strictObject({
  kind: z.literal('sql'),
  ...assertionBase,
  query: nonEmpty.describe('a query returning one scalar; tables: memories (view), calls, provider_calls (provider-backed targets), store.<table>'),
  op: comparator,
  value: z.union([z.number(), z.string()]),
});
const absentAssertion = z.strictObject({
  kind: z.literal('absent'),
  ...assertionBase,
  text: nonEmpty,
  case_sensitive: z.boolean().default(false),
});
const recallAssertion = z
  .strictObject({
    kind: z.literal('recall'),
    ...assertionBase,
    query: nonEmpty,
    contains: z.string().optional(),
    not_contains: z.string().optional(),
  })
  .refine((a) => a.contains !== undefined || a.not_contains !== undefined, {
    message: 'a recall assertion needs `contains` or `not_contains`',
  });
const calledAssertion = z
  .strictObject({
    kind: z.literal('called'),
    ...assertionBase,
    call_op: z.enum(MEMORY_OPS).optional().describe('count calls made for this memory op'),
    tool: z.string().optional().describe('count calls of this tool (name as the target names it)'),
    op: comparator,
    value: z.number().int().nonnegative(),
  })
  .refine((a) => a.call_op !== undefined || a.tool !== undefined, {
    message: 'a called assertion needs `call_op` or `tool`',
  });
const transcriptAssertion = z
  .strictObject({
    kind: z.literal('transcript'),
    ...assertionBase,
    contains: z.string().optional(),
    not_contains: z.string().optional(),
    regex: z.string().optional(),
    case_sensitive: z.boolean().default(false),
  })
  .refine((a) => a.contains !== undefined || a.not_contains !== undefined || a.regex !== undefined, {
    message: 'a transcript assertion needs `contains`, `not_contains` or `regex`',
  });

export const assertionSchema = z.discriminatedUnion('kind', [
  countAssertion,
  sqlAssertion,
  absentAssertion,
  recallAssertion,
  calledAssertion,
  transcriptAssertion,
]);
export type Assertion = z.infer<typeof assertionSchema>;
export const ASSERTION_KINDS = ['count', 'sql', 'absent', 'recall', 'called', 'transcript'] as const;

export const EXPECTATIONS = ['detect', 'defend-or-detect'] as const;

export const scenarioSchema = z.strictObject({
  $schema: z.string().optional(),
  schema_version: z.literal(1),
  id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'lowercase letters, digits and -, equal to the file name without extension'),
  title: nonEmpty,
  description: nonEmpty,
  adapted_from: z.string().optional(),
  tags: z.array(z.string()).default([]),
  setup: z
    .strictObject({
      memories: z.array(setupMemory).default([]),
      files: z.array(setupFile).default([]),
      similarity: z
        .array(similarity)
        .default([])
        .describe('embedding similarities the model provider serves; a scenario with any needs a provider-backed target'),
    })
    .default({ memories: [], files: [], similarity: [] }),
  provider: scenarioProviderSchema
    .optional()
    .describe('LLM answers the model provider gives; a scenario with this block needs a provider-backed target'),
  deterministic: z.strictObject({
    well_behaved: z.array(stepSchema),
    violation: z
      .strictObject({
        expectation: z.enum(EXPECTATIONS),
        defence: z
          .enum(CLAIMS)
          .optional()
          .describe('the defence this violation probes; a target that claims it fails the run when the violation is only detected'),
        steps: z.array(stepSchema).min(1),
      })
      .nullable(),
  }),
  real_model: z
    .strictObject({
      sessions: z.array(z.strictObject({ prompts: z.array(nonEmpty).min(1) })).min(1),
      max_turns: z.number().int().positive().default(8),
    })
    .nullable()
    .default(null),
  assertions: z.array(assertionSchema).min(1),
});
export type Scenario = z.infer<typeof scenarioSchema>;
export type ScenarioInput = z.input<typeof scenarioSchema>;

/**
 * Which assertions judge a cell. A deterministic phase: `both` and its own phase. A real-model
 * cell is held to the scenario's positive expectations too: a well-behaved agent run (a real
 * model, or the scripted model replaying the well-behaved steps) is judged by `both`,
 * `well-behaved` and `real-model` assertions; a scripted `--policy violation` run by `both` and
 * `violation`, exactly like the deterministic violation phase.
 */
export function assertionApplies(a: Assertion, judgedAs: DeterministicPhase, realModel = false): boolean {
  if (a.phase === 'both' || a.phase === judgedAs) return true;
  return realModel && judgedAs === 'well-behaved' && a.phase === 'real-model';
}
