import type { AnswerContext, Judgment } from '../core/results.js';
import type { Assertion } from '../scenario/schema.js';
import type { Evidence } from '../evidence/open.js';
import type { RecallResult } from '../ops/recall.js';
import type { FixtureFile, FixtureView } from './fixture-files.js';
import type { FixtureScan } from './scan.js';
import type { JudgeModel } from './llm/client.js';
import type { JudgePool } from './llm/pool.js';

/** How a `command` judge's command ended (see cell/command.ts, which runs it in the fixture). */
export interface CommandRun {
  /** the argv as run, after placeholders were filled */
  argv: string[];
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** it could not start (no such program, not executable) */
  spawnError?: string;
  /** stdout went past the limit and was cut */
  truncated: boolean;
  ms: number;
  /** how it was kept off the network (isolated: a namespace with only loopback) */
  network: string;
}

export interface CommandRequest {
  bin?: string;
  run: string[];
  cwd: string;
  timeoutMs: number;
}

/** What judges may read: the evidence, the recall probes it keeps (run after the snapshot), the agent's answer. */
export interface JudgeContext {
  evidence: Evidence;
  /** a query's stored probe (judge/probes.ts): unreadable, with why, when none was kept */
  recall?: (query: string) => Promise<RecallResult>;
  transcript?: string;
  /** the conversation that ended with the answer (its prompts and calls rows), for grounded llm checks */
  answerContext?: AnswerContext;
  /** the fixture, for `file` assertions */
  fixture?: FixtureView;
  /** files beyond the store that `absent` also scans (new project files, the agent's own memory files) */
  files?: FixtureFile[];
  /** the same files, already read for the texts of the cell's absent assertions (before a recall probe could write) */
  fileScan?: FixtureScan;
  /** the model for `llm` assertions; null or absent: none configured, they abstain */
  judgeModel?: JudgeModel | null;
  /** the run's judge models, when assertions name their own (jurors with different models) */
  judgePool?: JudgePool;
  /** where a scenario's prompt override paths are relative to */
  scenarioDir?: string;
  /** the fixture project, for llm judges of fixture files (absent once it is removed) */
  fixtureDir?: string;
  /** runs a `command` judge's command in the live fixture; absent once the fixture is gone (rejudge) */
  command?: (r: CommandRequest) => Promise<CommandRun>;
  /**
   * Judges an assertion whose kind runs in the time-limited judge process (bounded.ts). Absent
   * in that process itself, where such judges run directly.
   */
  bounded?: (a: Assertion) => Promise<Judgment>;
  /** a scenario ref's memory: its captured id (may be empty) and the content it was written with */
  memory?: (ref: string) => { id: string; content: string } | undefined;
}

export function textMatch(hay: string, needle: string, caseSensitive: boolean): boolean {
  return caseSensitive ? hay.includes(needle) : hay.toLowerCase().includes(needle.toLowerCase());
}

/** How much of a judged text a judgment keeps as its actual value. */
export const SHOWN = 400;
