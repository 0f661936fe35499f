import { z } from 'zod';
import { JUDGE_LEVELS, llmFields, llmProblems, rankFields } from './llm-schema.js';
import { CLAIMS } from './claims.js';
import { budgetFields, commandFields, pluginFields, regexSource } from './judge-kinds-schema.js';
import { durationMs } from '../util/duration.js';
import type { DeterministicPhase, Phase } from '../core/results.js';

export type { DeterministicPhase, Phase };

/** Target-neutral memory actions. `tool` is the escape hatch for target-specific scenarios. */
/** `curate_dry_run`: the curator's report of what it would change, changing nothing (judged from the call's result). */
export const MEMORY_OPS = ['remember', 'update', 'forget', 'recall', 'curate', 'curate_dry_run', 'expire'] as const;
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
  tags: z.array(z.string()).optional(),
  metadata: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      'what else a corpus file says of the memory (front-matter keys memeval does not use); not sent to the target',
    ),
});

/**
 * What a `setup.store_sql` statement must change: exactly N rows (N ≥ 1), or at least one
 * (`some`). A statement may not change nothing: zero rows means the phase would run on a store
 * the scenario did not describe, so there is no "any" (and no 0).
 */
export const EXPECT_ROWS = ['some'] as const;
type ExpectRows = (typeof EXPECT_ROWS)[number];
const storeSqlStatement = z.union([
  nonEmpty.describe('one SQL statement; it must change at least one row'),
  z.strictObject({
    sql: nonEmpty.describe('one SQL statement run against the store (the main database, tables unqualified)'),
    expect_rows: z
      // a refinement, not a narrower type: its message (the fix) survives the union around it
      .union([z.number().int(), z.string()])
      .refine((v): v is number | ExpectRows => (typeof v === 'number' ? v >= 1 : v === 'some'), {
        message:
          'a number (exactly that many rows, 1 or more) or "some" (at least one); "any" and 0 are refused: a pin that changed no row leaves the scenario on a store it did not describe',
      })
      .default('some')
      .describe('rows it must change: a number (exactly, 1 or more) or "some" (at least one; the default)'),
    note: z.string().optional(),
  }),
]);
export type StoreSqlStatement = z.infer<typeof storeSqlStatement>;

const setupFile = z.strictObject({
  path: nonEmpty.describe('relative to the fixture project; cannot leave it'),
  content: z.string(),
});

const similarity = z.strictObject({
  a: nonEmpty.describe('anchor text, or $ref:<name> for the content of a setup memory or remember step'),
  b: nonEmpty.describe(
    'any text the provider embeds that contains this (case-insensitive) gets `cosine` to the anchor; $ref:<name> allowed',
  ),
  cosine: z.number().min(-1).max(1),
});

export { regexSource };

const providerRule = z.strictObject({
  name: z.string().optional().describe('shown in provider_calls.matched'),
  contains: z
    .union([nonEmpty, z.array(nonEmpty).min(1)])
    .describe('every string must occur in the request messages (case-insensitive); $ref:<name> allowed'),
  capture: regexSource
    .optional()
    .describe('a regex that must also match the request; $1.. in the answer are its groups'),
  hold: z
    .literal('next-second')
    .optional()
    .describe('answer at the start of the next wall-clock second (servers that make ids from the clock)'),
  answer: z.string(),
  phase: z.enum(['both', 'well-behaved', 'violation']).default('both'),
});

/** What a fault rule makes the provider answer instead of a good response. */
export const PROVIDER_FAULTS = [
  'http-429',
  'http-500',
  'timeout',
  'malformed-json',
  'wrong-dimension',
  'empty-embedding',
] as const;
export type ProviderFaultKind = (typeof PROVIDER_FAULTS)[number];
/** Where in a cell a fault rule is served and must be served: the phase (step or agent), setup, or any stage. */
export const FAULT_STAGES = ['phase', 'setup', 'any'] as const;
/** Faults that only an embeddings request can get (they are about the vector). */
export const EMBEDDING_ONLY_FAULTS: ReadonlySet<ProviderFaultKind> = new Set(['wrong-dimension', 'empty-embedding']);

const providerFault = z.strictObject({
  name: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9 _.:-]*$/, 'letters, digits, spaces and _ . : -')
    .optional()
    .describe('shown in provider_calls.fault_rule; defaults to `fault <index>`'),
  on: z
    .enum(['embeddings', 'chat', 'any'])
    .describe('which requests the fault can hit: embedding requests, chat (LLM) requests, or both'),
  contains: z
    .union([nonEmpty, z.array(nonEmpty).min(1)])
    .optional()
    .describe(
      'only requests whose inputs (embedding texts, chat messages) contain every string (case-insensitive); $ref:<name> allowed',
    ),
  skip: z.number().int().min(0).default(0).describe('let this many matching requests through before the fault starts'),
  times: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('how many matching requests get the fault (after `skip`); default: every one'),
  fault: z
    .enum(PROVIDER_FAULTS)
    .describe(
      'http-429 / http-500: an error status with Retry-After; timeout: no answer until the client gives up; malformed-json: a 200 whose body is not JSON; wrong-dimension / empty-embedding: vectors of another size, or none',
    ),
  retry_after: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('http-429 / http-500 only: the Retry-After header, in seconds (default 1)'),
  dimensions: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('wrong-dimension only: the vector size served (default half the size asked for)'),
  phase: z.enum(['both', 'well-behaved', 'violation']).default('both'),
  stage: z
    .enum(FAULT_STAGES)
    .default('phase')
    .describe(
      'which requests of the cell it is served to, counted on (skip, times) and must be served to count: the phase (the default), setup (seeding and setup steps), or any',
    ),
  optional: z
    .boolean()
    .default(false)
    .describe(
      "a fault that need not be served (e.g. one for another target's request shape); a cell in which a required fault was never served in its stage is an error",
    ),
});
export type ProviderFaultRule = z.infer<typeof providerFault>;

/** Scripted answers of the model provider a provider-backed target is pointed at. */
export const scenarioProviderSchema = z.strictObject({
  rules: z
    .array(providerRule)
    .default([])
    .describe('first match wins; the target declaration may add rules after these'),
  faults: z
    .array(providerFault)
    .default([])
    .describe(
      'requests the provider answers with a fault instead; checked before the answer rules, the first matching fault wins',
    ),
  default: z.string().optional().describe("the answer when no rule matches (else the target's default)"),
});
export type ScenarioProvider = z.infer<typeof scenarioProviderSchema>;

const stepBase = { note: z.string().optional() };

/**
 * A project or namespace of the target (a workspace, a channel, a project id) a step writes to or
 * searches in: the declaration passes it as `{{namespace}}` (empty when a step names none). A
 * scenario whose steps name one is unsupported on a target whose remember and recall take none.
 */
const namespace = z
  .string()
  .regex(/^[a-z][a-z0-9-]*$/, 'a namespace name: lowercase letters, digits and -')
  .optional()
  .describe("the target's project or namespace this step writes to or searches in ({{namespace}} in its calls)");

const rememberStep = z.strictObject({
  op: z.literal('remember'),
  ...stepBase,
  namespace,
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
  namespace,
});
const curateStep = z.strictObject({ op: z.literal('curate'), ...stepBase });
const curateDryRunStep = z.strictObject({ op: z.literal('curate_dry_run'), ...stepBase });
const expireStep = z
  .strictObject({ op: z.literal('expire'), ...stepBase })
  .describe("run the target's expiry or retention sweep (what its own rules say has expired is archived or deleted)");
const restartStep = z.strictObject({ op: z.literal('restart'), ...stepBase });

/** How a `kill` step ends the server: SIGKILL (a crash, an OOM kill), or SIGTERM, which a server may catch and save on. */
export const KILL_SIGNALS = ['SIGKILL', 'SIGTERM'] as const;
export type KillSignal = (typeof KILL_SIGNALS)[number];

const killStep = z
  .strictObject({
    op: z.literal('kill'),
    ...stepBase,
    signal: z
      .enum(KILL_SIGNALS)
      .default('SIGKILL')
      .describe(
        "SIGKILL (the default: a crash, an OOM kill, a closed laptop) or SIGTERM (for comparison: a server may catch it and save); sent to the server's whole process group",
      ),
    after: z
      .literal('ack')
      .optional()
      .describe("kill as soon as the previous step's answer arrived (the write before it was acknowledged)"),
    during: z
      .union([
        z.literal('write'),
        z.strictObject({
          bytes: z
            .number()
            .int()
            .min(1)
            .describe("the server is killed once this many bytes of the next write's request were written to it"),
        }),
      ])
      .optional()
      .describe(
        'kill while the next step (a write) is in flight: "write" sends it whole and kills as soon as the store changes on disk (or, at the latest, when an answer arrives); { bytes: N } sends only the first N bytes of its request, then kills',
      ),
  })
  .refine((s) => (s.after === undefined) !== (s.during === undefined), {
    message:
      'a kill step needs exactly one of `after: "ack"` (right after the previous write was answered) and `during` ("write", or { bytes: N }: while the next write is in flight)',
  })
  .describe(
    'kill the server (its whole process group) without letting it shut down, at a chosen point; the next step runs in a new server session on the same store',
  );
const advanceClockStep = z.strictObject({
  op: z.literal('advance_clock'),
  ...stepBase,
  by: z
    .string()
    .refine(
      (d) => durationMs(d) !== undefined,
      'a duration longer than zero: <integer><unit> parts, units w, d, h, m, s, ms (e.g. "30d", "1h30m")',
    )
    .describe("how far the target servers' wall clock moves forward (Node servers only: a preload shifts Date)"),
});
const toolStep = z.strictObject({
  op: z.literal('tool'),
  ...stepBase,
  tool: nonEmpty,
  args: z.record(z.string(), z.unknown()).default({}),
});

/** A step that makes calls and may run beside others in a `parallel` step. */
export const leafStepSchema = z.discriminatedUnion('op', [
  rememberStep,
  updateStep,
  forgetStep,
  recallStep,
  curateStep,
  curateDryRunStep,
  expireStep,
  toolStep,
]);
export type LeafStep = z.infer<typeof leafStepSchema>;

/** The most server sessions a `parallel` step may spread its calls over. */
export const MAX_PARALLEL_SESSIONS = 8;

const parallelStep = z.strictObject({
  op: z.literal('parallel'),
  ...stepBase,
  steps: z
    .array(leafStepSchema)
    .min(2)
    .describe('issued all at once; each is recorded on its own (what it answered, or that it never did)'),
  sessions: z
    .number()
    .int()
    .min(1)
    .max(MAX_PARALLEL_SESSIONS)
    .default(1)
    .describe(
      'server sessions the steps are spread over, in turn: 1 is the current session; more start further servers of the same target on the same store for this step and stop them after it',
    ),
});

/** Every step: the leaf steps, and those that only a phase's sequence can hold. */
export const stepSchema = z.discriminatedUnion('op', [
  ...leafStepSchema.options,
  restartStep,
  killStep,
  advanceClockStep,
  parallelStep,
]);
export type Step = z.infer<typeof stepSchema>;
export type ParallelStep = z.infer<typeof parallelStep>;
export type KillStep = z.infer<typeof killStep>;

/** Every step that calls or restarts, with a `parallel` step's steps in its place, in order. */
export function flatSteps(steps: Step[]): Exclude<Step, ParallelStep>[] {
  return steps.flatMap((s) => (s.op === 'parallel' ? s.steps : [s]));
}

const comparator = z.enum(COMPARATORS);

/**
 * The stage of a scenario's story an assertion reports on ("written", "marked", "survives
 * restart", "acted on"): the cell result groups its judgments by stage and names each stage by
 * its outcome. A plain name reads as "<name>: pass/fail"; `pass` and `fail` give the words a
 * reader sees instead ("marked" / "unmarked"). Reporting only: the verdict is the assertions'.
 */
export const stageSchema = z.union([
  z.string().regex(/^[a-z][a-z0-9-]*$/, 'a stage name: lowercase letters, digits and -'),
  z.strictObject({
    name: z.string().regex(/^[a-z][a-z0-9-]*$/, 'a stage name: lowercase letters, digits and -'),
    pass: nonEmpty.optional().describe('what the stage reads as when every assertion of it holds'),
    fail: nonEmpty.optional().describe('what the stage reads as when one fails'),
  }),
]);
export type Stage = z.infer<typeof stageSchema>;

const assertionBase = {
  name: nonEmpty,
  phase: z.enum(ASSERTION_PHASES),
  description: z.string().optional(),
  stage: stageSchema
    .optional()
    .describe('the stage of the scenario this assertion reports on; the cell result groups judgments by stage'),
  precondition: z
    .boolean()
    .optional()
    .describe(
      "a guard, not the check: what must hold for the scenario's other assertions to mean anything (the recall ran and found the fact it must find). If it fails, the cell is error (the scenario's precondition did not hold), in either phase, never fail or detected; it never makes a cell pass",
    ),
};

const countAssertion = z.strictObject({
  kind: z.literal('count'),
  ...assertionBase,
  contains: z.string().optional(),
  source: z.string().optional(),
  category: z.string().optional(),
  case_sensitive: z.boolean().default(false),
  include_deleted: z.boolean().default(false),
  ref: z.string().optional().describe("$ref:<name>: count memories holding that memory's content (or captured id)"),
  op: comparator,
  value: z.number().int().nonnegative(),
});
const sqlAssertion = z.strictObject({
  kind: z.literal('sql'),
  ...assertionBase,
  query: nonEmpty.describe(
    'a query returning one scalar; tables: memories (view), calls, provider_calls (provider-backed targets), recall_probes, store_sql (setup.store_sql as it ran), agent_usage (agent cells), store.<table>',
  ),
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
    call_op: z
      .enum(MEMORY_OPS)
      .optional()
      .describe(
        'count memory operations of this kind: one remember is one, however many tool calls the target needs for it (an agent’s call of a tool the op uses counts as one)',
      ),
    tool_calls_of_op: z
      .enum(MEMORY_OPS)
      .optional()
      .describe('count the raw tool calls made for this memory op (one remember is two on server-memory)'),
    tool: z.string().optional().describe('count calls of this tool (name as the target names it)'),
    op: comparator,
    value: z.number().int().nonnegative(),
  })
  .refine((a) => a.call_op !== undefined || a.tool_calls_of_op !== undefined || a.tool !== undefined, {
    message: 'a called assertion needs `call_op`, `tool_calls_of_op` or `tool`',
  })
  .refine((a) => a.call_op === undefined || a.tool_calls_of_op === undefined, {
    message: 'a called assertion counts `call_op` (operations) or `tool_calls_of_op` (tool calls), not both',
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

const fileAssertion = z.strictObject({
  kind: z.literal('file'),
  ...assertionBase,
  path: nonEmpty.describe(
    'a file in the fixture: relative to the project, or starting with {{home}}, {{data}}, {{project}} or {{fixture}}',
  ),
  exists: z.boolean().default(true).describe('false: the file must not exist'),
  contains: z.string().optional(),
  not_contains: z.string().optional(),
  regex: z.string().optional(),
  case_sensitive: z.boolean().default(false),
});
const llmAssertion = z
  .strictObject({ kind: z.literal('llm'), ...assertionBase, ...llmFields })
  .superRefine((a, ctx) => {
    for (const message of llmProblems(a)) ctx.addIssue({ code: 'custom', message });
  });
const rankAssertion = z
  .strictObject({ kind: z.literal('rank'), ...assertionBase, ...rankFields })
  .refine(
    (a) =>
      (a.memory !== undefined && (a.top_k !== undefined || a.before !== undefined)) ||
      (a.memory === undefined && a.before === undefined && a.top_k === undefined && a.max_results !== undefined),
    {
      message: 'a rank assertion needs `memory` with `top_k` and/or `before`, or only `max_results`',
    },
  );

const commandAssertion = z.strictObject({ kind: z.literal('command'), ...assertionBase, ...commandFields });
const pluginAssertion = z.strictObject({ kind: z.literal('plugin'), ...assertionBase, ...pluginFields });
const budgetAssertion = z.strictObject({ kind: z.literal('budget'), ...assertionBase, ...budgetFields });

const integrityAssertion = z
  .strictObject({ kind: z.literal('integrity'), ...assertionBase })
  .describe(
    'the store opens and is well-formed as the run left it: an SQLite store passes PRAGMA integrity_check, every line of a JSONL store (and every .json/.jsonl file of a files store) parses; a store gone after a kill, or one that does not open, fails',
  );
const durableAssertion = z
  .strictObject({
    kind: z.literal('durable'),
    ...assertionBase,
    case_sensitive: z.boolean().default(false),
  })
  .describe(
    'every write memeval issued in the cell that the target acknowledged holds: what was acknowledged as stored (remember, update) is in a live memory, what was acknowledged as forgotten is in none; a write that was never answered (the server was killed first) is listed, not judged',
  );

export const VOTING_RULES = ['majority', 'unanimous', 'any', 'average', 'weighted'] as const;
export type VotingRule = (typeof VOTING_RULES)[number];
/**
 * How a juror's error (or abstention) counts: not at all (the jury still needs its quorum of
 * decided votes) or as the jury's own error. Never as a fail vote: in a violation phase a fail
 * vote reads as a detection, so a dead or garbled judge would read "caught".
 */
export const BAD_VOTE_RULES = ['ignore', 'error'] as const;
const badVoteRule = (field: 'errors' | 'abstentions') =>
  z
    .enum(BAD_VOTE_RULES, {
      error: (iss) =>
        iss.input === 'fail'
          ? `\`${field}: "fail"\` is no longer accepted: a juror that could not judge is never a fail vote (in a violation phase it would read as a detection); ` +
            'use "ignore" (the vote does not count and the jury still needs its quorum) or "error" (the jury errors)'
          : undefined,
    })
    .default('ignore');
export const CASCADE_POLICIES = ['reject-on-any-fail', 'accept-on-all-pass', 'final'] as const;
export type CascadePolicy = (typeof CASCADE_POLICIES)[number];

/** A judge inside a jury or cascade: any assertion; its `phase` defaults to its parent's. */
const memberAssertion: z.ZodType<Assertion> = z.preprocess(
  (v) => (v && typeof v === 'object' && !Array.isArray(v) && !('phase' in v) ? { ...v, phase: 'both' } : v),
  z.lazy(() => assertionSchema),
) as unknown as z.ZodType<Assertion>;

const juryAssertion = z
  .strictObject({
    kind: z.literal('jury'),
    ...assertionBase,
    judges: z.array(memberAssertion).min(1),
    rule: z.enum(VOTING_RULES),
    threshold: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe('average: mean normalised score needed; weighted: share of weight needed (default 0.5)'),
    weights: z.array(z.number().positive()).optional().describe('weighted: one weight per judge'),
    errors: badVoteRule('errors'),
    abstentions: badVoteRule('abstentions'),
    quorum: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('decided (pass/fail) votes the jury needs; default a majority of its judges'),
    level: z.enum(JUDGE_LEVELS).default('fail'),
  })
  .superRefine((a, ctx) => {
    if (a.rule === 'average' && a.threshold === undefined)
      ctx.addIssue({ code: 'custom', message: 'rule "average" needs `threshold`' });
    if (a.rule === 'weighted' && a.weights?.length !== a.judges.length)
      ctx.addIssue({
        code: 'custom',
        message: `rule "weighted" needs \`weights\`, one per judge (${a.judges.length})`,
      });
    if (a.rule !== 'weighted' && a.weights)
      ctx.addIssue({ code: 'custom', message: '`weights` applies to rule "weighted" only' });
    if (a.quorum !== undefined && a.quorum > a.judges.length)
      ctx.addIssue({
        code: 'custom',
        path: ['quorum'],
        message: `\`quorum\` ${a.quorum} is more than the jury's ${a.judges.length} judge(s)`,
      });
  });

const cascadeAssertion = z
  .strictObject({
    kind: z.literal('cascade'),
    ...assertionBase,
    tiers: z
      .array(z.strictObject({ policy: z.enum(CASCADE_POLICIES), judges: z.array(memberAssertion).min(1) }))
      .min(1),
    level: z.enum(JUDGE_LEVELS).default('fail'),
  })
  .superRefine((a, ctx) => {
    a.tiers.forEach((t, i) => {
      if (t.policy === 'final' && i !== a.tiers.length - 1)
        ctx.addIssue({ code: 'custom', path: ['tiers', i, 'policy'], message: 'only the last tier can be "final"' });
    });
    if (a.tiers[a.tiers.length - 1]?.policy !== 'final')
      ctx.addIssue({
        code: 'custom',
        path: ['tiers'],
        message: 'the last tier must have policy "final" so the cascade always decides',
      });
    // the order of deterministic and llm tiers is checked at load (judge/kinds/compose.ts checkCascade)
  });

export const assertionSchema = z.discriminatedUnion('kind', [
  countAssertion,
  sqlAssertion,
  absentAssertion,
  recallAssertion,
  calledAssertion,
  transcriptAssertion,
  fileAssertion,
  llmAssertion,
  rankAssertion,
  juryAssertion,
  cascadeAssertion,
  commandAssertion,
  pluginAssertion,
  budgetAssertion,
  integrityAssertion,
  durableAssertion,
]);
type Simple =
  | z.infer<typeof countAssertion>
  | z.infer<typeof sqlAssertion>
  | z.infer<typeof absentAssertion>
  | z.infer<typeof recallAssertion>
  | z.infer<typeof calledAssertion>
  | z.infer<typeof transcriptAssertion>
  | z.infer<typeof llmAssertion>
  | z.infer<typeof rankAssertion>
  | z.infer<typeof fileAssertion>
  | z.infer<typeof commandAssertion>
  | z.infer<typeof pluginAssertion>
  | z.infer<typeof budgetAssertion>
  | z.infer<typeof integrityAssertion>
  | z.infer<typeof durableAssertion>;
interface ComposedBase {
  name: string;
  phase: AssertionPhase;
  description?: string;
  stage?: Stage;
  precondition?: boolean;
  level: 'warn' | 'fail';
}
export interface JuryAssertion extends ComposedBase {
  kind: 'jury';
  judges: Assertion[];
  rule: VotingRule;
  threshold?: number;
  weights?: number[];
  errors: (typeof BAD_VOTE_RULES)[number];
  abstentions: (typeof BAD_VOTE_RULES)[number];
  quorum?: number;
}
export interface CascadeAssertion extends ComposedBase {
  kind: 'cascade';
  tiers: { policy: CascadePolicy; judges: Assertion[] }[];
}
export type Assertion = Simple | JuryAssertion | CascadeAssertion;

export const EXPECTATIONS = ['detect', 'defend-or-detect'] as const;

export const scenarioSchema = z.strictObject({
  $schema: z.string().optional(),
  schema_version: z.literal(1),
  id: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]*$/, 'lowercase letters, digits and -, equal to the file name without extension'),
  title: nonEmpty,
  description: nonEmpty,
  adapted_from: z.string().optional(),
  tags: z.array(z.string()).default([]),
  setup: z
    .strictObject({
      memories: z.array(setupMemory).default([]),
      memories_from: z
        .union([nonEmpty, z.array(nonEmpty).min(1)])
        .optional()
        .describe(
          'Markdown files with YAML front matter (ref, category, source, subject, tags, other keys kept as metadata), one memory per file, per ## section or per list item: a folder or a glob, relative to the scenario',
        ),
      files: z.array(setupFile).default([]),
      clock: z.iso
        .datetime({ offset: true, error: 'an ISO 8601 time with its zone, e.g. "2026-01-01T00:00:00Z"' })
        .optional()
        .describe(
          "the wall clock the target's servers start on, e.g. 2026-01-01T00:00:00Z (Node servers only: a preload shifts Date); advance_clock steps move it",
        ),
      steps: z
        .array(stepSchema)
        .default([])
        .describe('ops run after seeding and before the phase (e.g. searches); recorded, not judged as the phase'),
      store_sql: z
        .record(
          z.string().regex(/^[a-z0-9*][a-z0-9*-]*$/, 'a target name, or a pattern with * (e.g. hostile-sqlite-*)'),
          z.array(storeSqlStatement).min(1),
        )
        .optional()
        .describe(
          'SQL run against the store of an SQLite target after seeding and setup.steps, with the server stopped, to pin what no op can set (trust scores, recall counts, timestamps); keyed by target name, since column names differ. A target with no key, or whose store is not SQLite, makes the scenario unsupported',
        ),
      similarity: z
        .array(similarity)
        .default([])
        .describe(
          'embedding similarities the model provider serves; a scenario with any needs a provider-backed target',
        ),
    })
    .default({ memories: [], files: [], steps: [], similarity: [] }),
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
          .describe(
            'the defence this violation probes; a target that claims it fails the run when the violation is only detected',
          ),
        assume_claim: z
          .boolean()
          .optional()
          .describe(
            "hold every target to `defence` as if its declaration claimed it (a detected violation fails the run): a fuzz finding exported from a case flagged under --assume-claim, or by an op's own meaning",
          ),
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
