import { join, relative } from 'node:path';
import type { KillEnded, Sessions, StoreWatch } from '../drive/types.js';
import { storeBytes } from '../evidence/build.js';
import type { Fixture } from '../fixture/fixture.js';
import type { LoopbackBridge } from '../fixture/sandbox.js';
import { ClockError, type WallClock } from '../fixture/wall-clock.js';
import { NOISE_FILE } from '../mcp/noise.js';
import { TargetError, TargetSession } from '../mcp/session.js';
import { describeExit } from '../mcp/child-transport.js';
import type { KillSignal } from '../scenario/schema.js';
import { watchStoreFiles } from '../util/store-watch.js';
import type { ResolvedBin } from '../targets/resolve-bin.js';
import type { TargetDecl } from '../targets/schema.js';
import { Interrupted, MemevalError } from '../util/errors.js';
import type { PinWatch } from '../mcp/store-pins.js';
import type { CellTrail } from './trail.js';

/** A probe session number no driver reaches. */
const PROBE_SESSION = 999;

export interface CellSessionsOptions {
  decl: TargetDecl;
  bin: ResolvedBin;
  fixture: Fixture;
  cellDir: string;
  callsLog: string;
  serverEnv: Record<string, string>;
  bridges: LoopbackBridge[];
  /** the store file (none: the store is not on disk): a stop that empties it is a shutdown problem */
  storeFile?: string;
  /** the shifted wall clock: every server must answer from a process that took it */
  clock?: WallClock;
  signal?: AbortSignal;
  trail: CellTrail;
}

/**
 * The target's numbered server sessions in one cell, all recorded into the cell's calls log.
 * Every start and stop is noted in the trail: start time and network guard, and how the server
 * ended (a crash at shutdown, a store emptied at stop, a server that had to be killed).
 */
export class CellSessions implements Sessions {
  private session?: TargetSession;
  private no = 0;
  /** the number of the current session (extra sessions take numbers too) */
  private sessionNo = 0;
  /** every server this cell started, the recall probe's too */
  private readonly started: { no: number; session: TargetSession }[] = [];
  /** setup.store_sql's pinned rows, once pinned: every later start must leave them as they were */
  private pins?: PinWatch;

  constructor(private readonly o: CellSessionsOptions) {}

  /** From now on, a server whose start undoes a pin that held before it is a setup error. */
  watchPins(pins: PinWatch): void {
    this.pins = pins;
  }

  current(): TargetSession | undefined {
    return this.session;
  }

  /**
   * The first line a server of this cell wrote saying its declared store could not be opened
   * (server.store_failure and the built-in patterns); read once the servers have stopped.
   */
  storeFailure(): string | undefined {
    for (const { no, session } of this.started) {
      const line = session.storeFailure();
      if (line) return `${no === PROBE_SESSION ? 'the recall probe server' : `server session ${no}`} ${line}`;
    }
    return undefined;
  }

  async start(): Promise<TargetSession> {
    this.sessionNo = ++this.no;
    this.session = await this.server(this.no, this.o.callsLog, `stderr.${this.no}.log`);
    this.o.trail.serverStartMs.push(Math.round(this.session.startMs));
    this.o.trail.sawNetwork(this.session.network);
    return this.session;
  }

  async stop(): Promise<void> {
    const s = this.session;
    this.session = undefined;
    if (!s) return;
    await this.stopExtra({ no: this.sessionNo, session: s });
  }

  async startExtra(): Promise<{ no: number; session: TargetSession }> {
    const no = ++this.no;
    const session = await this.server(no, this.o.callsLog, `stderr.${no}.log`);
    this.o.trail.serverStartMs.push(Math.round(session.startMs));
    this.o.trail.sawNetwork(session.network);
    return { no, session };
  }

  /** Stop one server of this cell, noting how it ended (a crash at shutdown, a store emptied at stop). */
  async stopExtra({ no, session: s }: { no: number; session: TargetSession }): Promise<void> {
    const { trail, storeFile, fixture } = this.o;
    const before = storeBytes(storeFile);
    await s.close();
    const after = storeBytes(storeFile);
    const problems = [
      ...(s.stopProblem() ? [`server session ${no} ${s.stopProblem()}`] : []),
      ...(before && !after
        ? [
            `the store ${relative(fixture.root, storeFile!)} held ${before} bytes before server session ${no} stopped and is ${after === undefined ? 'gone' : 'empty'} after`,
          ]
        : []),
    ];
    if (problems.length) (trail.shutdown.push(...problems), (trail.shutdownStderr ||= s.stderr()));
    if (s.stopWarning()) trail.warnings.push(`server session ${no} ${s.stopWarning()}`);
  }

  /**
   * Kill the current server (a kill step) and start the next session on the same store. The
   * killed server is not stopped the MCP way, so nothing of how it stopped is a shutdown
   * problem. One that does not start again is a RestartAfterKillError.
   */
  async kill(signal: KillSignal): Promise<KillEnded> {
    const s = this.session;
    if (!s) throw new Error('kill: no server session is running');
    const no = this.sessionNo;
    const end = await s.kill(signal);
    await s.close(); // it is gone: this only closes its logs
    const storeBytesAfter = this.storeBytes();
    this.session = undefined;
    try {
      await this.start();
    } catch (e) {
      throw new RestartAfterKillError(no, e);
    }
    return { took: end.took, exit: describeExit(end), session: no, nextSession: this.sessionNo, storeBytesAfter };
  }

  async armKill(signal: KillSignal): Promise<StoreWatch | undefined> {
    const { storeFile, decl } = this.o;
    const group = this.session?.armKill(signal);
    if (!storeFile || group === undefined) return undefined;
    return watchStoreFiles(storeFile, decl.store.format === 'files', { group, signal });
  }

  storeBytes(): number | null {
    return storeBytes(this.o.storeFile) ?? null;
  }

  /** a server for the recall probe, recorded apart from the phase's calls and left out of the trail */
  async probe(): Promise<TargetSession> {
    return this.server(PROBE_SESSION, join(this.o.cellDir, 'probe-calls.jsonl'), 'stderr.probe.log');
  }

  // every server of the cell starts here: none may start once the run is interrupted
  private async server(no: number, logFile: string, stderrName: string): Promise<TargetSession> {
    const { decl, bin, fixture, cellDir, serverEnv, bridges } = this.o;
    if (this.o.signal?.aborted) throw new Interrupted('interrupted');
    const heldBefore = this.pins?.before();
    const session = await TargetSession.start({
      decl,
      bin,
      fixture,
      session: no,
      logFile,
      stderrFile: join(cellDir, stderrName),
      noiseFile: join(cellDir, NOISE_FILE),
      env: serverEnv,
      bridges,
    });
    this.started.push({ no, session });
    const label = no === PROBE_SESSION ? 'the recall probe server' : `server session ${no}`;
    const unclocked = this.o.clock?.checkServing(label);
    if (unclocked) {
      await session.close().catch(() => {});
      throw new ClockError(unclocked);
    }
    // read once the server answered its handshake: a store it rebuilt at start is rebuilt by now
    const unpinned = heldBefore && this.pins?.after(label, heldBefore);
    if (unpinned) {
      await session.close().catch(() => {});
      throw new PinLostError(unpinned);
    }
    return session;
  }
}

/** A server start undid what setup.store_sql pinned (or the pins could not be checked): the cell is `error`. */
export class PinLostError extends MemevalError {
  constructor(message: string) {
    super('SETUP', message);
  }
}

/**
 * The target's server did not start again after memeval killed it: what a user restarting it
 * after a crash would meet (a store it cannot open, a lock the dead process left). A
 * well-behaved cell is `fail` with this reason; elsewhere `error`, the target's (TARGET_EXIT).
 */
export class RestartAfterKillError extends MemevalError {
  declare readonly code: 'TARGET_EXIT';
  readonly stderrTail: string;

  constructor(
    readonly session: number,
    cause: unknown,
  ) {
    super(
      'TARGET_EXIT',
      `the server did not start again after memeval killed server session ${session}: ${(cause as Error).message}`,
      { cause },
    );
    this.stderrTail = cause instanceof TargetError ? cause.stderrTail : '';
  }
}
