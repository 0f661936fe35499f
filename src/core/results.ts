import { z } from 'zod';
import { FAIL_ON, runConfigSchema, SCRIPTED_POLICIES } from './config.js';

export { SCRIPTED_POLICIES, type ScriptedPolicy } from './config.js';

/**
 * What a run produces, shared by every layer: the cell flow writes these, reporters, diff,
 * merge and rejudge read them. A leaf module (it imports nothing from memeval) so that no
 * folder has to import another layer to name a result.
 */

export const VERDICTS = [
  'pass',
  'fail',
  'defended',
  'detected',
  'undetected',
  'flaky',
  'unsupported',
  'invalid',
  'error',
  'skipped',
] as const;
export type Verdict = (typeof VERDICTS)[number];

/**
 * Verdicts that say something was judged: the scenario's assertions ran on the target's real
 * state. `unsupported` and `skipped` judged nothing, `error` and `invalid` could not: none of
 * those is ever counted as passed.
 */
export const CHECKED_VERDICTS: readonly Verdict[] = ['pass', 'fail', 'defended', 'detected', 'undetected', 'flaky'];
export const isChecked = (v: Verdict): boolean => CHECKED_VERDICTS.includes(v);
/**
 * A cell counted as passed: checked and not failing the run. `flaky` (failed, then passed on a
 * --retries rerun) checked something but is never a pass: it is counted apart.
 */
export const isPassed = (r: { verdict: Verdict; fails_run: boolean }): boolean =>
  !r.fails_run && isChecked(r.verdict) && r.verdict !== 'flaky';

export const OUTCOMES = ['pass', 'fail', 'abstain', 'error'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** The phase a cell is judged as. A real-model cell names its own phase. */
export const PHASES = ['well-behaved', 'violation', 'real-model'] as const;
export type Phase = (typeof PHASES)[number];
export type DeterministicPhase = Exclude<Phase, 'real-model'>;

export const DRIVER_KINDS = ['replay', 'agent', 'fuzz'] as const;
export type DriverKind = (typeof DRIVER_KINDS)[number];

/** How a cell's target servers were kept off the network: see fixture/sandbox.ts. */
export const NETWORK_MODES = ['isolated', 'guarded', 'open'] as const;
export type NetworkMode = (typeof NETWORK_MODES)[number];

export const RUN_STATUSES = ['completed', 'interrupted', 'blocked', 'failed'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** Exit codes, as the README documents them. */
export const EXIT = { ok: 0, failed: 1, blocked: 2, invalid: 3, notProven: 4, interrupted: 130 } as const;

/**
 * What went wrong, for every error memeval raises on purpose (`util/errors.ts` MemevalError),
 * with the exit code the CLI ends with when such an error reaches it. Callers switch on the
 * code, never on message text; a cell that ends in `error` keeps it as `error_code`.
 */
export const ERROR_EXITS = {
  /** a scenario, target, flag or report that is not valid; nothing ran */
  INPUT: EXIT.invalid,
  /** --last-failed: the latest run planned this run's cells and none failed; nothing ran, and that is no failure */
  NOTHING_TO_RERUN: EXIT.ok,
  /** a target whose package is not installed (and --install was not given) */
  NOT_INSTALLED: EXIT.invalid,
  INSTALL: EXIT.failed,
  /** the run cannot write its own results (a full or read-only disk) */
  RUN_WRITE: EXIT.failed,
  INTERRUPTED: EXIT.interrupted,
  /** model-shaped work reached without a gate decision allowing it */
  COST_GATE: EXIT.blocked,
  /** the target server exited (or could not be spawned) */
  TARGET_EXIT: EXIT.failed,
  /** the target server did not answer within its startup or call timeout */
  TARGET_TIMEOUT: EXIT.failed,
  /** the target server answered in a way MCP does not allow, or memeval stopped listening to it */
  TARGET_PROTOCOL: EXIT.failed,
  OVERSIZE_MESSAGE: EXIT.failed,
  /** the cell's setup or store, as the target left it, cannot be used */
  SETUP: EXIT.failed,
  EVIDENCE: EXIT.failed,
  /** a file that could not be scanned for a text */
  SCAN: EXIT.failed,
  /** an llm judge's subject is not available in this cell */
  SUBJECT_UNAVAILABLE: EXIT.failed,
  TEMPLATE: EXIT.failed,
  REGEX_TIMEOUT: EXIT.failed,
} as const;
export type ErrorCode = keyof typeof ERROR_EXITS;
export const ERROR_CODES = Object.keys(ERROR_EXITS) as [ErrorCode, ...ErrorCode[]];

export const judgmentSchema = z.looseObject({
  name: z.string(),
  kind: z.string(),
  phase: z.string(),
  outcome: z.enum(OUTCOMES),
  passed: z.boolean().nullable(),
  actual: z.unknown(),
  expected: z.unknown(),
  detail: z.string(),
  /**
   * A decided judgment (pass or fail): the positive evidence it read and decided on (rows,
   * items, an exit, a model's answer). A decision without it was made on nothing: the verdict
   * treats it as `error` (judge/verdict.ts), so a fail counts as caught only when it observed.
   */
  observed: z.string().optional(),
  /** `warn` judgments are reported but never decide a verdict; absent means `fail` */
  level: z.enum(['warn', 'fail']).optional(),
  /** boolean, numeric (with bounds and threshold) or categorical */
  score: z.unknown().optional(),
  reasoning: z.string().optional(),
  /** llm judges: every call (prompt, raw answer, verdict, tokens, latency, cost) and what was shown */
  llm: z.unknown().optional(),
  /** jury and cascade: their members' judgments and how they were combined */
  members: z.array(z.unknown()).optional(),
  jury: z.unknown().optional(),
  cascade: z.unknown().optional(),
  /** the stage of the scenario's story its assertion reports on (core/stages.ts); absent: none */
  stage: z.object({ name: z.string(), pass: z.string().optional(), fail: z.string().optional() }).optional(),
  /** its assertion is a precondition (a guard): failing, it makes the cell `error`, never fail or detected (judge/verdict.ts) */
  precondition: z.boolean().optional(),
  /**
   * A fail that did not observe what its check is about (a rank over a recall that returned
   * nothing saw no ordering): why. It fails a well-behaved cell, but in a violation phase it is
   * no catch (judge/verdict.ts), and its stage reads "<stage>: not shown, <why>" (core/stages.ts).
   */
  not_observed: z.string().optional(),
  /**
   * An error of a judge that reads the store, in a cell whose store failed its integrity check
   * (it does not open, or a line of it does not parse). Beside an `integrity` judgment that
   * observed that, such errors are its consequence, not the verdict (judge/verdict.ts).
   */
  store_unreadable: z.boolean().optional(),
});
export type Judgment = z.infer<typeof judgmentSchema>;

/** Did this judgment decide, on something it observed? */
export const decidedOnEvidence = (j: Judgment): boolean =>
  (j.outcome === 'pass' || j.outcome === 'fail') && typeof j.observed === 'string' && j.observed.trim() !== '';

/** One `setup.store_sql` statement as it ran against the stopped server's store. */
export const storeSqlRecordSchema = z.looseObject({
  index: z.number(),
  sql: z.string(),
  expect_rows: z.union([z.number(), z.enum(['some', 'any'])]),
  /** rows it changed; null when it did not run to the end */
  rows: z.number().nullable(),
  ok: z.boolean(),
  error: z.string().optional(),
  /** a later statement failed, so this one's change was undone with it */
  rolled_back: z.boolean().optional(),
});
export type StoreSqlRecord = z.infer<typeof storeSqlRecordSchema>;
/** One call of a `parallel` step: what it answered, or that it never did. */
export const parallelCallSchema = z.looseObject({
  /** its place in the parallel step's `steps` */
  index: z.number(),
  op: z.string(),
  /** which of the step's sessions issued it (0 = the current session) */
  session_slot: z.number(),
  /** false: no answer came (the server hung or died); the step, and so the cell, is `error` */
  returned: z.boolean(),
  /** no answer came because memeval killed the server while the call was in flight (a `kill` step): expected, not an error */
  killed: z.boolean().optional(),
  tools: z.array(z.string()),
  ok: z.boolean(),
  ms: z.number(),
  note: z.string().optional(),
  result: z.string().optional(),
});
export type ParallelCall = z.infer<typeof parallelCallSchema>;

/** What a `kill` step did (the step record's `kill`). */
export const killRecordSchema = z.looseObject({
  signal: z.enum(['SIGKILL', 'SIGTERM']),
  /** where the scenario put it: after-ack, during-bytes, during-write */
  point: z.enum(['after-ack', 'during-bytes', 'during-write']),
  /**
   * what set it off: ack (the previous step had been answered), bytes-sent (the first N bytes
   * of the request were written), store-changed (a file of the store changed), answered (an
   * answer of the in-flight step arrived first), settled (the in-flight step ended before
   * either), exited (the server had exited on its own)
   */
  fired: z.enum(['ack', 'bytes-sent', 'store-changed', 'answered', 'settled', 'exited']),
  /** during-bytes: how many bytes of the request were written, of how many */
  bytes: z.object({ sent: z.number(), of: z.number() }).optional(),
  /** the server session killed, and the one started after it on the same store */
  session: z.number(),
  next_session: z.number().optional(),
  /** what ended the server: the signal, SIGKILL after a SIGTERM it outlived, or nothing (it had already exited) */
  took: z.enum(['SIGKILL', 'SIGTERM', 'SIGKILL after SIGTERM', 'already exited']),
  /** how it exited: "killed by SIGKILL", "exited with code 0" */
  exit: z.string(),
  /** the store's size in bytes when the kill step began and once the server was gone (null: no file) */
  store_bytes: z.object({ before: z.number().nullable(), after: z.number().nullable() }),
});
export type KillRecord = z.infer<typeof killRecordSchema>;

export const stepRecordSchema = z.looseObject({
  index: z.number(),
  stage: z.enum(['setup', 'step']),
  op: z.string(),
  tools: z.array(z.string()),
  ok: z.boolean(),
  ms: z.number(),
  note: z.string().optional(),
  result: z.string().optional(),
  /** a parallel step: how many sessions its calls were spread over, and each call */
  sessions: z.number().optional(),
  calls: z.array(parallelCallSchema).optional(),
  /** a `kill` step: where it was declared, what fired it and how the server ended */
  kill: killRecordSchema.optional(),
  /** the step was in flight when a kill step killed the server; `ok` false: it was never answered */
  killed: z.boolean().optional(),
});
export type StepRecord = z.infer<typeof stepRecordSchema>;

export const tokenUsageSchema = z.object({
  input: z.number(),
  output: z.number(),
  cache_read: z.number(),
  cache_write: z.number(),
  /** what the agent itself reported; null where it reports no cost */
  cost_usd: z.number().nullable(),
});
export type TokenUsage = z.infer<typeof tokenUsageSchema>;

export const turnRecordSchema = z.looseObject({
  session: z.number(),
  prompt: z.number(),
  exit_code: z.number().nullable(),
  ms: z.number(),
  startup_ms: z.number().optional(),
  model_requests: z.number().optional(),
  final_text: z.string(),
  tool_calls: z.array(z.object({ tool: z.string(), ok: z.boolean(), logged: z.boolean() })),
  /** tools/call requests the recording point saw in this prompt (absent in older reports) */
  memory_calls: z.number().optional(),
  /** completed, max_turns, timeout, invalid or error (core/finish-reason.ts; absent in older reports) */
  finish_reason: z.string().optional(),
  usage: tokenUsageSchema,
  stdout_file: z.string(),
  stderr_file: z.string(),
  invalid: z.array(z.string()),
  /** the calls log lines (the evidence `calls` rows, 1-based) recorded during this prompt; first > last when none */
  calls_seq: z.object({ first: z.number(), last: z.number() }).optional(),
});
export type TurnRecord = z.infer<typeof turnRecordSchema>;

export const agentRunInfoSchema = z.looseObject({
  agent: z.string(),
  agent_version: z.string(),
  model: z.string(),
  /** true when memeval's scripted model stood in for the model */
  scripted: z.boolean(),
  policy: z.enum(SCRIPTED_POLICIES).nullable(),
  repeat: z.number(),
  memory_off: z.record(z.string(), z.string()),
  /** true with the scripted model: token counts are its rough estimates */
  usage_estimated: z.boolean().optional(),
  instructions_off: z.record(z.string(), z.string()).optional(),
  turns: z.array(turnRecordSchema),
  usage: tokenUsageSchema,
});
export type AgentRunInfo = z.infer<typeof agentRunInfoSchema>;

/** The conversation the agent's final answer ended: its prompts and the calls rows recorded during it. */
export const answerContextSchema = z.object({
  session: z.number(),
  prompts: z.array(z.string()),
  first_seq: z.number(),
  last_seq: z.number(),
});
export type AnswerContext = z.infer<typeof answerContextSchema>;
/**
 * The wall clock a cell's servers ran on, when the scenario sets or advances it (assets/clock.cjs):
 * where it started, each advance, the offset in force at the end (server time − real time), and
 * what the server processes acknowledged.
 */
export const clockRecordSchema = z.looseObject({
  /** setup.clock, or null: the servers started on the real time */
  start: z.string().nullable(),
  offset_ms: z.number(),
  /** how many times the clock file was changed after the start */
  version: z.number(),
  events: z.array(
    z.looseObject({
      event: z.enum(['start', 'advance']),
      by: z.string().optional(),
      by_ms: z.number().optional(),
      offset_ms: z.number(),
      /** the servers' clock at that moment */
      wall: z.string(),
      stage: z.enum(['setup', 'step']).optional(),
      step: z.number().optional(),
    }),
  ),
  /** server processes that loaded the preload (each server session, its children, memeval's own bridge) */
  processes: z.number(),
  /** each running process that read an advanced clock, and which version */
  applied: z.array(z.looseObject({ pid: z.number(), version: z.number(), offset_ms: z.number() })),
  problem: z.string().optional(),
});
export type ClockRecord = z.infer<typeof clockRecordSchema>;

export const cellAboutSchema = z.looseObject({
  title: z.string(),
  description: z.string(),
  /** the defence (claim) the scenario's violation probes, when it names one */
  defence: z.string().optional(),
  tags: z.array(z.string()),
});
export type CellAbout = z.infer<typeof cellAboutSchema>;

export const cellResultSchema = z.looseObject({
  /** stable across runs: scenario/target/phase (phase-repeat with --repeat), or scenario/target/real-model/agent-repeat */
  cell_id: z.string(),
  scenario: z.string(),
  /** the scenario's tags (absent: none, or a report from before they were kept) */
  tags: z.array(z.string()).optional(),
  /** the published risks its tags map to (core/taxonomy.ts, e.g. OWASP-ASI06); absent: none */
  taxonomy: z.array(z.string()).optional(),
  /** the target's column: its name, or `name@version` for a version other than the pinned one */
  target: z.string(),
  /** the version of the target's package the cell ran ("local" for a server.command); absent in older reports */
  target_version: z.string().optional(),
  phase: z.enum(PHASES),
  driver: z.enum(DRIVER_KINDS),
  /** a cell run several times (--repeat): which run, 1..N; absent when each cell runs once */
  repeat: z.number().optional(),
  /**
   * A cell rerun by --retries: every attempt in order (the first is the original run), each
   * with its verdict, reason and evidence dir. The cell's own verdict is `flaky` when a retry
   * passed, else the first attempt's. Absent when the cell ran once.
   */
  attempts: z
    .array(
      z.looseObject({
        verdict: z.enum(VERDICTS),
        reason: z.string(),
        fails_run: z.boolean(),
        cell_dir: z.string(),
        duration_ms: z.number(),
      }),
    )
    .optional(),
  verdict: z.enum(VERDICTS),
  reason: z.string(),
  fails_run: z.boolean(),
  defence: z.string().optional(),
  /**
   * Why the cell exists, beside its verdict: the scenario's title and description and what it
   * guards (the defence its violation probes, and its tags). Absent in older reports.
   */
  about: cellAboutSchema.optional(),
  claimed: z.boolean().optional(),
  steps: z.array(stepRecordSchema),
  /** `setup.store_sql`: each statement run against the store and the rows it changed (absent: none) */
  store_sql: z.array(storeSqlRecordSchema).optional(),
  assertions: z.array(judgmentSchema),
  fixture: z.string(),
  /** --keep: the target's store in the kept fixture (absent when nothing was kept) */
  kept_store: z.string().optional(),
  cell_dir: z.string(),
  stderr_tail: z.string().optional(),
  /** a cell that ended in `error` because memeval raised an error: what kind (ERROR_EXITS) */
  error_code: z.enum(ERROR_CODES).optional(),
  /** isolated: network namespace with only loopback; guarded: Node preload only; open: neither */
  network: z.enum(NETWORK_MODES).optional(),
  warnings: z.array(z.string()),
  duration_ms: z.number(),
  /** spawn to MCP initialize done, per server session of this cell */
  server_start_ms: z.array(z.number()).optional(),
  /** wall time of each lifecycle stage (fixture, seed, drive, evidence, judge, teardown) */
  timings_ms: z.record(z.string(), z.number()).optional(),
  agent: agentRunInfoSchema.optional(),
  /**
   * Cells that reached the verdict: everything it read besides the judgments (judge/verdict.ts
   * VerdictInput less `judgments`), kept whole, so rejudge reads it back instead of guessing.
   */
  verdict_input: z
    .looseObject({ judgedAs: z.enum(['well-behaved', 'violation']), refusedCalls: z.number() })
    .optional(),
  /** what the judges read besides the evidence, as the cell ended (judge/cell.ts JudgeInput) */
  judge_input: z
    .looseObject({
      /** each scenario ref's memory after the phase: captured id (may be empty) and content after any update */
      memory_refs: z.record(z.string(), z.object({ id: z.string(), content: z.string() })),
      transcript: z.string().optional(),
      /**
       * where the answer came from, for grounded checks: the prompts of the session that ended with
       * it (the conversation the agent saw) and the evidence `calls` rows recorded during them
       */
      answer_context: answerContextSchema.optional(),
      /** how many fixture files beside the store `absent` scanned (removed after the run) */
      fixture_files: z.number().optional(),
    })
    .optional(),
  /** sha256 of each evidence file when it was written, by path under cell_dir: rejudge refuses one that changed */
  evidence_sha256: z.record(z.string(), z.string()).optional(),
  /** how servers of the cell failed when stopped (a crash at shutdown, a store lost at exit); absent when none did */
  shutdown: z.array(z.string()).optional(),
  /** the shifted wall clock the cell's servers ran on (scenarios with setup.clock or advance_clock) */
  clock: clockRecordSchema.optional(),
});
export type CellResult = z.infer<typeof cellResultSchema>;

/** A real-model cell's agent: its id ends in `real-model/<agent>-<repeat>`, also when it ended before the agent reported. */
export const cellAgent = (r: { cell_id: string; agent?: { agent?: string } }): string | undefined =>
  r.agent?.agent ?? /\/real-model\/(.+)-\d+$/.exec(r.cell_id)?.[1];

const verdictCounts = z.partialRecord(z.enum(VERDICTS), z.number());

/** One cell whose verdict differs between two runs or two columns (report/diff.ts). */
export const cellChangeSchema = z.object({
  cell_id: z.string(),
  /** the earlier cell, where its id differs (a `--repeat` cell matched to its base cell) */
  before_id: z.string().optional(),
  before: z.enum(VERDICTS),
  after: z.enum(VERDICTS),
  reason: z.string(),
  /** the later cell fails the run (set on cells not checked in either run, which may still fail it) */
  fails_run: z.boolean().optional(),
});
export type CellChange = z.infer<typeof cellChangeSchema>;

/** Two versions of one declared target in one run, the older column against the newer (report/diff.ts versionChanges). */
export const versionChangeSchema = z.object({
  target: z.string(),
  from: z.object({ column: z.string(), version: z.string() }),
  to: z.object({ column: z.string(), version: z.string() }),
  regressed: z.array(cellChangeSchema),
  /** failing in both, but differently (absent in reports from before it was told apart) */
  failing_differently: z.array(cellChangeSchema).optional(),
  fixed: z.array(cellChangeSchema),
  changed: z.array(cellChangeSchema),
  not_checked: z.array(cellChangeSchema),
  unchanged: z.number(),
});
export type VersionChange = z.infer<typeof versionChangeSchema>;

export const matrixSchema = z.object({
  /** the columns: each target's column name, or `target · agent` when the run had several agents */
  targets: z.array(z.string()),
  /** a run of several agents: each column's agent */
  agents: z.record(z.string(), z.string()).optional(),
  /** each column's version where the run ran several versions of one target */
  versions: z.record(z.string(), z.string()).optional(),
  /** each declared target the run ran at several versions: consecutive versions compared (older → newer) */
  version_changes: z.array(versionChangeSchema).optional(),
  rows: z.array(
    z.object({
      scenario: z.string(),
      cells: z.record(
        z.string(),
        z.object({
          'well-behaved': z.enum(VERDICTS).optional(),
          violation: z.enum(VERDICTS).optional(),
          'real-model': z.enum(VERDICTS).optional(),
          fails_run: z.boolean(),
          /** per phase, the cell's stages as a reader reads them (core/stages.ts stagesLine); absent: none named */
          stages: z.partialRecord(z.enum(PHASES), z.string()).optional(),
        }),
      ),
      /** the published risks the scenario's tags map to (core/taxonomy.ts); absent: none */
      taxonomy: z.array(z.string()).optional(),
    }),
  ),
  totals: z.record(
    z.string(),
    // unsupported and skipped are counted apart from passed (absent in reports written before they were)
    z.object({
      passed: z.number(),
      failed: z.number(),
      unsupported: z.number().optional(),
      skipped: z.number().optional(),
      by_verdict: verdictCounts,
    }),
  ),
});
export type Matrix = z.infer<typeof matrixSchema>;

export const summarySchema = z.object({
  cells: z.number(),
  /** cells with a checked verdict that do not fail the run */
  passed: z.number(),
  failed: z.number(),
  /** counted apart from passed; absent in reports written before they were (there, passed included them) */
  unsupported: z.number().optional(),
  skipped: z.number().optional(),
  /** cells that failed and then passed on a retry: never counted as passed (absent before --retries existed) */
  flaky: z.number().optional(),
  /** cells with a checked verdict (see CHECKED_VERDICTS): none means nothing was checked, exit 1 */
  checked: z.number().optional(),
  by_verdict: verdictCounts,
  /** what the CLI exits with for this report */
  exit_code: z.number(),
});
export type Summary = z.infer<typeof summarySchema>;

export const targetInfoSchema = z.looseObject({
  /** the column: the declared name, or `name@version` for a version other than the pinned one */
  name: z.string(),
  package: z.string(),
  /** the version that ran */
  version: z.string(),
  /** `--target name@<requested>`: the version the declaration pins and what was asked for (a version, range or tag) */
  pinned: z.string().optional(),
  requested: z.string().optional(),
  claims: z.array(z.string()),
});
export type TargetInfo = z.infer<typeof targetInfoSchema>;

/**
 * The declared target a column runs: a column is the target's name, or `name@version` when
 * `--target name@version` ran another version than the pinned one (names hold no `@`).
 */
export const declaredTarget = (column: string): string => column.split('@')[0];

/** Tokens over every agent cell of a run; cost only where the agents reported one. */
export const usageTotalSchema = tokenUsageSchema.extend({
  /** true with the scripted model: the counts are its rough estimates, not a model's */
  estimated: z.boolean(),
  cells: z.number(),
});
export type UsageTotal = z.infer<typeof usageTotalSchema>;

/** A file a run read, by content: parts of one run must have read the same bytes. */
export const fileHashSchema = z.object({ file: z.string(), sha256: z.string() });

/**
 * What a run set out to do: every cell it planned (across all shards), which shard it is, and
 * the scenario and target declarations it read. `merge` checks from this that its parts make
 * one whole run, and `--baseline` that a baseline is one. Reports from before it have none.
 */
export const runPlanSchema = z.looseObject({
  cells: z.array(z.string()),
  shard: z.object({ index: z.number(), count: z.number() }).nullable(),
  scenarios: z.record(z.string(), fileHashSchema),
  targets: z.record(z.string(), fileHashSchema),
  /** --intended-targets: every target (column) of the whole run this one is a part of; merge refuses parts missing one */
  intended_targets: z.array(z.string()).optional(),
});
export type RunPlan = z.infer<typeof runPlanSchema>;

/**
 * What a report says about how its cells ran, flat and snake_case: merge compares these across
 * shards and rejudge reads the scenarios dir and judge from them. Every key is optional: blocked
 * runs, merged runs and reports from older versions record different subsets.
 */
export const reportOptionsSchema = z.looseObject({
  workers: z.number().optional(),
  keep: z.boolean().optional(),
  scenarios_dir: z.string().optional(),
  /** judge/llm/config.ts JudgeModelConfig, or null: no judge model */
  judge_model: z
    .object({
      model: z.string(),
      base_url: z.string().nullable().optional(),
      protocol: z.string().optional(),
      scripted: z.boolean().optional(),
      loopback: z.boolean().optional(),
    })
    .nullable()
    .optional(),
  /** --judge-level: "fail" promoted every warn-level llm check (and jury or cascade with one) to fail */
  judge_level: z.literal('fail').optional(),
  /** --judge-min-confidence: llm judgments less sure than this were `error` */
  judge_min_confidence: z.number().optional(),
  /** --retries: reruns of a cell that failed the run (a cell passing on one is flaky); absent in reports from before it was recorded */
  retries: z.number().int().min(0).optional(),
  /** --fail-on, resolved (with `flaky`, a flaky cell fails the run); absent in reports from before it was recorded */
  fail_on: z.enum(FAIL_ON).optional(),
  /** "i/n" for one shard of a run */
  shard: z.string().optional(),
  /** the agent, or the agents of a run of several, comma-separated */
  agent: z.string().nullable().optional(),
  agent_version: z.string().optional(),
  /** a run of several agents: each agent and its version */
  agents: z.array(z.object({ name: z.string(), version: z.string() })).optional(),
  model: z.string().nullable().optional(),
  scripted_model: z.boolean().optional(),
  policy: z.enum(SCRIPTED_POLICIES).optional(),
  repeat: z.number().optional(),
  /** real-model runs: --max-turns (absent: each scenario's own), --prompt-timeout, --mcp-timeout, --base-url */
  max_turns: z.number().optional(),
  prompt_timeout_ms: z.number().optional(),
  mcp_timeout_ms: z.number().optional(),
  agent_base_url: z.string().optional(),
  agent_turn: z.boolean().optional(),
  i_understand_model_cost: z.boolean().optional(),
  selftest: z.boolean().optional(),
  /** a merged run: its parts' run ids and shards */
  merged_from: z.array(z.string()).optional(),
  shards: z.array(z.unknown()).optional(),
});
export type ReportOptions = z.infer<typeof reportOptionsSchema>;

export const REPORT_SCHEMA_VERSION = 2 as const;

export const reportSchema = z.looseObject({
  schema_version: z.literal(REPORT_SCHEMA_VERSION),
  run_id: z.string(),
  status: z.enum(RUN_STATUSES),
  reason: z.string().optional(),
  memeval_version: z.string(),
  layer: z.enum(['deterministic', 'real-model']),
  started_at: z.string(),
  ended_at: z.string(),
  options: reportOptionsSchema,
  /** the resolved run config (core/config.ts; no secrets: keys come from the environment); absent in reports from before it, blocked and merged runs */
  config: runConfigSchema.optional(),
  scenarios: z.array(z.string()),
  targets: z.array(targetInfoSchema),
  results: z.array(cellResultSchema),
  matrix: matrixSchema,
  summary: summarySchema,
  warnings: z.array(z.string()),
  /** real-model runs: tokens (and cost where known) over the whole run */
  usage_total: usageTotalSchema.optional(),
  /** absent in reports from before plans were recorded: merge and --baseline refuse those */
  plan: runPlanSchema.optional(),
});
export type Report = z.infer<typeof reportSchema>;
