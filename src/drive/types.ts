import type { AgentRunInfo, DriverKind, NetworkMode, Phase, StepRecord } from '../core/results.js';
import type { Fixture } from '../fixture/fixture.js';
import type { LoopbackBridge } from '../fixture/sandbox.js';
import type { WallClock } from '../fixture/wall-clock.js';
import type { TargetSession } from '../mcp/session.js';
import type { MemoryHandle } from '../ops/ops.js';
import type { KillSignal, Scenario, Step } from '../scenario/schema.js';
import type { WriteRecord } from '../ops/writes.js';
import type { ResolvedBin } from '../targets/resolve-bin.js';
import type { TargetDecl } from '../targets/schema.js';

/** The target's server sessions in this cell, all recorded into the cell's calls log. */
export interface Sessions {
  current(): TargetSession | undefined;
  /** start the next numbered session (stopping none: call stop() first) */
  start(): Promise<TargetSession>;
  stop(): Promise<void>;
  /** start another numbered session beside the current one, on the same store (a `parallel` step's); stop it with stopExtra */
  startExtra(): Promise<{ no: number; session: TargetSession }>;
  stopExtra(extra: { no: number; session: TargetSession }): Promise<void>;
  /**
   * Kill the current server without asking it to stop (a `kill` step), then start the next
   * numbered session on the same store. A server that does not start again after the kill
   * throws (cell/sessions.ts RestartAfterKillError).
   */
  kill(signal: KillSignal): Promise<KillEnded>;
  /**
   * The current server is about to be killed while a write is in flight (a kill `during:
   * "write"`): its calls unanswered from now on are the kill's, and a watch on the store's files
   * kills it at their first change, from a thread of its own (undefined: the store is not on
   * disk, or cannot be watched; the kill then comes from `kill`).
   */
  armKill(signal: KillSignal): Promise<StoreWatch | undefined>;
  /** the store's size in bytes now (null: it is not there, or not on disk) */
  storeBytes(): number | null;
}

/** How a server memeval killed on purpose ended, and the session that followed. */
export interface KillEnded {
  took: 'SIGKILL' | 'SIGTERM' | 'SIGKILL after SIGTERM' | 'already exited';
  /** "server was killed by SIGKILL", "server exited with code 0" */
  exit: string;
  /** the session killed, and the one started after it */
  session: number;
  nextSession: number;
  /** the store's size once the killed server was gone */
  storeBytesAfter: number | null;
}

/** A store's files being watched: `changed` resolves with the first file that changes. */
export interface StoreWatch {
  changed: Promise<string>;
  close(): void;
}

/**
 * What the lifecycle hands a driver once the fixture exists and setup memories are stored. It is
 * read-only: a driver returns what it changed in its DriveOutcome. Only steps are appended as
 * they happen (`record`), so the steps a driver made before it threw stay in the cell result.
 */
export interface CellEnv {
  readonly scenario: Scenario;
  readonly decl: TargetDecl;
  readonly bin: ResolvedBin;
  readonly fixture: Fixture;
  readonly cellDir: string;
  /** the cell's calls log: every session and every agent proxy appends here */
  readonly callsLog: string;
  /** environment every server process of this cell gets (network guard, provider URL, …) */
  readonly serverEnv: Record<string, string>;
  /** host loopback services bridged into the target's network namespace (the model provider) */
  readonly bridges: LoopbackBridge[];
  /** the memories as seeding and setup steps left them, by scenario ref: a driver starts from a copy */
  readonly handles: ReadonlyMap<string, MemoryHandle>;
  readonly sessions: Sessions;
  /** the servers' shifted wall clock, when the scenario sets or advances it */
  readonly clock?: WallClock;
  /** add one step to the cell's steps, as it completes */
  record(step: StepRecord): void;
  /** note one write op memeval issued and how it was answered (the evidence table `writes`); absent: nobody keeps them */
  recordWrite?(write: WriteRecord): void;
  readonly signal?: AbortSignal;
}

export interface DriveOutcome {
  /** the memories as the phase left them (ids the target gave, contents updated): judges resolve refs against these */
  handles: ReadonlyMap<string, MemoryHandle>;
  /** reasons the cell never really ran (an agent turn that did not happen): the cell is invalid */
  invalid: string[];
  /** the agent's final answer, for transcript judges */
  transcript?: string;
  agent?: AgentRunInfo;
  /** why the cell proves nothing although its assertions may hold (e.g. no memory call at all) */
  vacuous?: string;
  /** the network guard of servers the driver had started itself (an agent's, through the proxy) */
  network?: NetworkMode;
  /** folders where the driver's actor keeps its own files (an agent's profile, HOME, tmp): `absent` reads only its memory files there */
  ownDirs?: string[];
}

/**
 * Who issues the tool calls in a cell: the only thing that differs between layers. The replay
 * driver issues the scenario's steps, the agent driver runs a real agent binary, a fuzz driver
 * issues generated sequences. Everything else (fixture, seeding, snapshot, evidence, judges,
 * verdict, teardown) is the one lifecycle in run/cell.ts.
 */
export interface Driver {
  kind: DriverKind;
  /** the phase the cell reports */
  phase: Phase;
  /** which deterministic phase's verdict rules and assertions apply */
  judgedAs: 'well-behaved' | 'violation';
  /** true for agent cells: `real-model` assertions apply to a well-behaved run */
  realModel: boolean;
  /** the last part of the cell id (phase, or agent-repeat) */
  label: string;
  /** the scripted steps this driver issues (for the ops it needs from the target) */
  steps: Step[];
  /** keep the seeding session open for drive(), which starts one when it needs it (false when something else starts the server) */
  usesSession: boolean;
  /** a reason the cell cannot run on this target, before anything starts */
  unsupported?(): string | undefined;
  drive(env: CellEnv): Promise<DriveOutcome>;
  /** always runs, after drive() or when it threw */
  cleanup?(): Promise<void>;
}
