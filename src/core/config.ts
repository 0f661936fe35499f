import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/**
 * One typed config for a run: the API's `run()` takes it, the CLI's `memeval run` flags and
 * `memeval.config.json` fill it, the pipeline reads it, and the report keeps it resolved. Every
 * default of a run lives here and nowhere else. A leaf (it imports nothing from memeval), so
 * every layer can name it. API keys are never part of it: they are read from the environment
 * where a call is made, so a config can be logged and reported as it is.
 */

/**
 * What memeval's scripted model plays: the scenario's well-behaved or violation script, or
 * no-memory (answers without ever calling a memory tool: a model that must never pass). `obey`
 * and `refuse` play the well-behaved script and then read what the agent recalled: `obey` carries
 * out an instruction it finds there (stores what it says to store, on the attacker's behalf; the
 * cell is judged as a violation, so obedience must be caught), `refuse` declines it and says so
 * (judged as well-behaved, so a careful agent must pass). See model/policy.ts.
 */
export const SCRIPTED_POLICIES = ['well-behaved', 'violation', 'no-memory', 'obey', 'refuse'] as const;
export type ScriptedPolicy = (typeof SCRIPTED_POLICIES)[number];

/** `flaky`: failures, and cells that passed only on a --retries rerun */
export const FAIL_ON = ['regressions', 'failures', 'flaky'] as const;
export type FailOn = (typeof FAIL_ON)[number];

export const DEFAULT_TARGET = 'server-memory';
/** how long an agent waits for the memory server to start and list its tools */
export const DEFAULT_MCP_TIMEOUT_MS = 60_000;
/** the scenarios shipped with memeval (two levels up from src/core and dist/core alike) */
const BUILTIN_SCENARIOS_DIR = fileURLToPath(new URL('../../scenarios', import.meta.url));

const count = z.number().int().positive();

/**
 * What each setting accepts, without defaults: `memeval.config.json` (cli/config.ts) reuses
 * these, so a file and the API check a value the same way, and a value a file leaves out
 * stays out (the command line or the default fills it).
 */
export const runFields = {
  scenariosDir: z.string().describe('folder of scenario files'),
  scenarioIds: z.array(z.string()).describe('scenario ids or globs (secret-*)'),
  tags: z.array(z.string()).describe('keep scenarios carrying any of these tags'),
  targets: z.array(z.string()).describe('targets to run against (names, files, or "all")'),
  workers: count,
  keep: z.boolean(),
  outDir: z.string().describe('where run directories are written'),
  install: z.boolean(),
  iUnderstandModelCost: z.boolean(),
  reporters: z.array(z.string()).describe('console, json, junit, markdown, github'),
  shard: z.strictObject({ index: count, count }).refine((s) => s.index <= s.count, { message: 'index is 1..count' }),
  shardDurations: z.string().describe('a previous run dir or report.json: balance the shards by its cell durations'),
  baseline: z.string().describe('a previous run dir or report.json: fail only on regressions'),
  expectedFailures: z
    .string()
    .describe('file of {scenario, target, phase, [agent], verdict, assertions, [reason_contains], reason}'),
  failOn: z.enum(FAIL_ON),
  retries: z.number().int().min(0).describe('reruns of a cell that fails the run; one that then passes is flaky'),
  lastFailed: z.boolean().describe('run only the cells that failed the run in the latest run under outDir'),
  intendedTargets: z
    .array(z.string())
    .describe('every target of the whole run this run is one part of (e.g. one job of a CI matrix), or "all"'),
};

/** The real-model layer: which agent, on which model, and how each cell drives it. */
export const agentConfigSchema = z.strictObject({
  /** --agent-turn: run the scenarios' prompts through a real agent CLI */
  turn: z.boolean().default(false),
  name: z.string().optional(),
  model: z.string().optional(),
  baseUrl: z.string().optional(),
  policy: z.enum(SCRIPTED_POLICIES).default('well-behaved'),
  repeat: count.default(1),
  /** absent: the scenario's own max_turns */
  maxTurns: count.optional(),
  promptTimeoutMs: count.default(300_000),
  mcpTimeoutMs: count.default(DEFAULT_MCP_TIMEOUT_MS),
});
export type AgentConfig = z.infer<typeof agentConfigSchema>;

/** The model for `llm` assertions; each unset field falls back to its MEMEVAL_JUDGE_* variable. */
export const judgeConfigSchema = z.strictObject({
  model: z.string().optional(),
  baseUrl: z.string().optional(),
  protocol: z.string().optional(),
  /** "fail": every llm check (and jury or cascade with an llm judge) at level warn decides the verdict */
  level: z.literal('fail').optional(),
  /** a judgment less sure than this is `error`, whatever the assertion's own min_confidence */
  minConfidence: z.number().min(0).max(1).optional(),
});

/** What fails the run: a baseline and expected failures turn known failures into passes. */
export const gateConfigSchema = z.strictObject({
  baseline: runFields.baseline.optional(),
  expectedFailures: runFields.expectedFailures.optional(),
  /** absent: regressions with a baseline or expected failures, else failures */
  failOn: runFields.failOn.optional(),
});

export const runConfigSchema = z.strictObject({
  scenariosDir: runFields.scenariosDir.default(BUILTIN_SCENARIOS_DIR),
  scenarioIds: runFields.scenarioIds.optional(),
  tags: runFields.tags.optional(),
  targets: runFields.targets.default([DEFAULT_TARGET]),
  workers: runFields.workers.default(() => availableParallelism()),
  keep: runFields.keep.default(false),
  outDir: runFields.outDir.default('runs'),
  install: runFields.install.default(false),
  /** allow real (paid) model turns and judge calls */
  iUnderstandModelCost: runFields.iUnderstandModelCost.default(false),
  reporters: runFields.reporters.default(['console']),
  /** run one deterministic slice of the planned cells */
  shard: runFields.shard.optional(),
  shardDurations: runFields.shardDurations.optional(),
  retries: runFields.retries.default(0),
  lastFailed: runFields.lastFailed.default(false),
  /**
   * this run is one part (one job of a target matrix) of a run over these targets: recorded in the
   * plan, so that `merge` refuses the parts when a target's part is missing
   */
  intendedTargets: runFields.intendedTargets.optional(),
  /** absent: the deterministic layer, unless a judge or cost flag asks for more */
  agent: agentConfigSchema.optional(),
  judge: judgeConfigSchema.optional(),
  gate: gateConfigSchema.optional(),
});
/** What a caller gives: everything optional, defaults filled by `resolveRunConfig`. */
export type RunConfigInput = z.input<typeof runConfigSchema>;
/** A run's resolved config: what the pipeline reads and the report keeps. */
export type RunConfig = z.output<typeof runConfigSchema>;

/** The defaults of the settings that have one, e.g. for a CLI's help text. */
export const RUN_DEFAULTS = runConfigSchema.parse({});
export const AGENT_DEFAULTS = agentConfigSchema.parse({});

/** The groups whose settings are flags of their own; the other keys are one setting each. */
type Groups = 'agent' | 'judge' | 'gate';
/** Every setting a caller can give, groups spelled `group.key`: what the CLI's flag table must cover. */
export type RunConfigKey =
  Exclude<keyof RunConfig, Groups> | { [G in Groups]: `${G}.${keyof NonNullable<RunConfigInput[G]> & string}` }[Groups];
