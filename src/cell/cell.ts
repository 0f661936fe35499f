import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CellResult, ClockRecord, StepRecord } from '../core/results.js';
import type { DriveOutcome, Driver } from '../drive/types.js';
import { guardEnv } from '../fixture/netguard.js';
import { ClockError, type WallClock } from '../fixture/wall-clock.js';
import type { JudgePool } from '../judge/llm/pool.js';
import { proxyPinsLost, proxyStopProblems, proxyStoreFailure } from '../mcp/proxy.js';
import type { Scenario } from '../scenario/schema.js';
import type { WriteRecord } from '../ops/writes.js';
import type { ResolvedBin } from '../targets/resolve-bin.js';
import type { TargetDecl } from '../targets/schema.js';
import { Interrupted, MemevalError, messageOf } from '../util/errors.js';
import { StageClock } from './clock.js';
import { commandRunner } from './command.js';
import { collectEvidence } from './evidence.js';
import { judgeLive } from './judge.js';
import { openCellDir, prepareFixture, type PreparedFixture } from './prepare.js';
import { cellBase, cellResult, failedOutcome, type Outcome } from './result.js';
import { seed } from './seed.js';
import { pinStore } from './store-sql.js';
import { PinLostError } from './sessions.js';
import { PinWatch, pinsFile, writePins } from '../mcp/store-pins.js';
import { storeSqlFor } from '../scenario/store-sql.js';
import { CellSessions } from './sessions.js';
import { Teardown } from './teardown.js';
import { CellTrail } from './trail.js';
import { unsupportedReason } from './unsupported.js';
import { cellClock } from './wall-clock.js';

export interface CellOptions {
  /** the id the result carries: a planned cell's (run/plan.ts planRun), or the caller's own for a cell outside a run */
  cellId: string;
  scenario: Scenario;
  decl: TargetDecl;
  bin: ResolvedBin;
  driver: Driver;
  cellDir: string;
  keep: boolean;
  /** extra environment for every server process of this cell */
  serverEnv?: Record<string, string>;
  signal?: AbortSignal;
  /** the judge models for `llm` assertions (absent, or no default model: they abstain) */
  judgePool?: JudgePool;
  /** the scenario file's folder: llm prompt overrides are relative to it */
  scenarioDir?: string;
}

/**
 * One cell, for every layer: fixture → target session through the recording point → seeding
 * (checked) → driver → stop and snapshot → evidence → judges → verdict. The driver is the only
 * part that differs. Teardown (servers, the driver's own processes, the fixture) always runs,
 * last-in first-out; the trail keeps what the cell did however it ends.
 */
export async function runCell(o: CellOptions): Promise<CellResult> {
  const clock = new StageClock();
  const { scenario, decl, driver, cellDir, signal } = o;
  const base = cellBase(o.cellId, scenario, decl, o.bin.version, driver, cellDir);
  const trail = new CellTrail();
  const unsupported = unsupportedReason(scenario, decl, driver, o.bin.file);
  if (unsupported) return cellResult(base, { verdict: 'unsupported', reason: unsupported }, clock, trail);
  // a cell the pool starts after an interrupt makes nothing: no dir, no fixture
  if (signal?.aborted) return cellResult(base, { verdict: 'skipped', reason: 'run interrupted' }, clock, trail);
  const callsLog = join(cellDir, 'calls.jsonl');
  // a full or read-only disk: this cell cannot keep evidence, the run goes on to say so
  const unwritable = openCellDir(cellDir, callsLog);
  if (unwritable) return cellResult(base, { verdict: 'error', reason: unwritable }, clock, trail);
  const serverEnv = { ...guardEnv(join(cellDir, 'network.jsonl')), ...o.serverEnv };
  const teardown = new Teardown();
  let sessions: CellSessions | undefined;
  let wallClock: WallClock | undefined;
  let drive: DriveOutcome | undefined;
  let outcome: Outcome;
  try {
    const label = `${scenario.id}-${decl.name}-${driver.label}`;
    const prepared = await prepareFixture(
      { scenario, decl, bin: o.bin, cellDir, keep: o.keep, label, judgedAs: driver.judgedAs },
      teardown,
      trail,
    );
    const { fixture, bridges, storePath } = prepared;
    // made before the first server starts: seeds are stored at the scenario's start time
    const wall = (wallClock = cellClock(scenario, driver, fixture, cellDir));
    const runEnv = wall ? wall.env(serverEnv) : serverEnv;
    const live = (sessions = new CellSessions({
      ...prepared,
      decl,
      bin: o.bin,
      cellDir,
      callsLog,
      serverEnv: runEnv,
      clock: wall,
      signal,
      trail,
    }));
    teardown.add('stop target', () => live.stop());
    if (driver.cleanup) teardown.add(`stop ${driver.kind} driver`, () => driver.cleanup!());
    clock.lap('fixture');

    const record = (s: StepRecord) => void trail.steps.push(s);
    const recordWrite = (w: WriteRecord) => void trail.writes.push(w);
    const env = {
      scenario,
      decl,
      bin: o.bin,
      fixture,
      cellDir,
      callsLog,
      serverEnv: runEnv,
      bridges,
      sessions: live,
      clock: wall,
      signal,
      record,
      recordWrite,
    };
    const seeded = await seed(env, storePath, trail);
    if ('problem' in seeded) throw new SetupError(seeded.problem);
    await pinStoreSql(scenario, decl.name, storePath, live, trail, cellDir);
    if (!driver.usesSession) await live.stop();
    clock.lap('seed');

    // every provider request from here is the phase's (a fault rule of the phase counts only these)
    prepared.provider?.setStage(driver.kind === 'agent' ? 'agent' : 'step');
    drive = await driver.drive({ ...env, handles: seeded.handles });
    if (drive.network) trail.sawNetwork(drive.network);
    await live.stop();
    prepared.provider?.setStage('judge');
    checkAfterDrive(wall, callsLog, trail);
    clock.lap('drive');

    if (drive.invalid.length) outcome = { verdict: 'invalid', reason: drive.invalid.join('; '), agent: drive.agent };
    else outcome = await evidenceAndJudges(o, { prepared, drive, live, trail, teardown, clock, callsLog, serverEnv });
  } catch (e) {
    outcome = failedOutcome(e, { signal, sessions, agent: drive?.agent, judgedAs: driver.judgedAs });
  }
  if (wallClock) trail.clock = keepClock(wallClock, cellDir, trail);
  clock.restart();
  await teardown.run();
  clock.lap('teardown');
  return cellResult(base, storeFailureOutcome(outcome, sessions, callsLog), clock, trail, teardown.failures);
}

/**
 * The evidence of the stopped servers (store copy, views, calls), then the judges over it: the
 * command judges run the target's CLI in the fixture with the cell's own environment.
 */
async function evidenceAndJudges(
  o: CellOptions,
  c: {
    prepared: PreparedFixture;
    drive: DriveOutcome;
    live: CellSessions;
    trail: CellTrail;
    teardown: Teardown;
    clock: StageClock;
    callsLog: string;
    serverEnv: Record<string, string>;
  },
): Promise<Outcome> {
  const { scenario, decl, driver, cellDir } = o;
  const { prepared, drive, trail, teardown } = c;
  const { fixture, storePath, bridges } = prepared;
  const collected = collectEvidence(
    {
      decl,
      storePath,
      fixture,
      cellDir,
      callsLog: c.callsLog,
      provider: prepared.provider,
      storeSql: trail.storeSql,
      agent: drive.agent,
      writes: trail.writes,
      kills: trail.steps.flatMap((st) => (st.kill ? [{ index: st.index, stage: st.stage, ...st.kill }] : [])),
    },
    teardown,
  );
  if ('problem' in collected) throw new SetupError(collected.problem);
  c.clock.lap('evidence');
  const command = commandRunner({ decl, bin: o.bin, fixture, serverEnv: c.serverEnv, bridges });
  const judging = { scenario, decl, driver, prepared, drive, collected, sessions: c.live, trail, cellDir, command };
  const outcome = await judgeLive({ ...judging, judgePool: o.judgePool, scenarioDir: o.scenarioDir }, teardown);
  c.clock.lap('judge');
  if (o.signal?.aborted) throw new Interrupted('interrupted');
  return outcome;
}

/**
 * setup.store_sql: the scenario's statements for this target run against its stopped store, and
 * the rows they pinned are watched: a server that rebuilds its store at start would run the phase
 * on an unpinned store (memeval's sessions check at every start, an agent's proxy reads the same
 * rows from the pins file).
 */
async function pinStoreSql(
  scenario: Scenario,
  target: string,
  storePath: string,
  live: CellSessions,
  trail: CellTrail,
  cellDir: string,
): Promise<void> {
  const pins = storeSqlFor(scenario, target);
  if (!pins?.length) return;
  // the server must not hold the store open (or overwrite the pins from its memory)
  await live.stop();
  const pinned = pinStore(storePath, pins);
  trail.storeSql = pinned.records;
  if (pinned.problem) throw new SetupError(pinned.problem);
  live.watchPins(new PinWatch(storePath, pinned.pins ?? []));
  writePins(pinsFile(cellDir), { store: storePath, rows: pinned.pins ?? [] });
}

/** Once the phase's servers are stopped: what makes its evidence not the scenario's, thrown; how the agent's servers ended, kept. */
function checkAfterDrive(wall: WallClock | undefined, callsLog: string, trail: CellTrail): void {
  // a server process that could not read the clock ran on some other time than the scenario's
  const clockProblem = wall?.problem();
  if (clockProblem) throw new ClockError(clockProblem);
  // the servers an agent started through the proxy: how they ended when it stopped them
  trail.shutdown.push(...proxyStopProblems(callsLog));
  // and whether one undid setup.store_sql's pins when it started
  const unpinned = proxyPinsLost(callsLog);
  if (unpinned) throw new PinLostError(unpinned);
}

/** The clock the servers ran on, for the result and beside the evidence (clock.json). */
function keepClock(clock: WallClock, cellDir: string, trail: CellTrail): ClockRecord {
  const record = clock.record();
  try {
    writeFileSync(join(cellDir, 'clock.json'), JSON.stringify(record, null, 2) + '\n');
  } catch (e) {
    trail.warnings.push(`clock.json could not be written: ${messageOf(e)}`);
  }
  return record;
}

/**
 * A server that logged that its declared store could not be opened ran on something else (a
 * fallback to memory, a store that is not the one read as evidence): nothing the cell judged
 * is about the declared target, so the cell is `error` with that line, whatever it found.
 * memeval's own sessions watch their servers; an agent's servers are watched by the proxy.
 */
export function storeFailureOutcome(
  outcome: Outcome,
  sessions: Pick<CellSessions, 'storeFailure'> | undefined,
  callsLog: string,
): Outcome {
  const line = sessions?.storeFailure() ?? proxyStoreFailure(callsLog);
  if (!line || outcome.verdict === 'skipped') return outcome;
  return {
    ...outcome,
    verdict: 'error',
    reason: `the target's store could not be opened: ${line}${outcome.verdict === 'error' ? ` (and: ${outcome.reason})` : ''}`,
    error_code: 'SETUP',
  };
}

/** A failure of the cell's setup or evidence that the target caused: the cell is `error`. */
export class SetupError extends MemevalError {
  constructor(message: string) {
    super('SETUP', message);
  }
}
