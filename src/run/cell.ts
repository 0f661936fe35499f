import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { CellResult } from '../core/results.js';
import type { Driver, DriveOutcome, Sessions } from '../drive/types.js';
import { readCalls } from '../drive/agent.js';
import { buildEvidence, toolToOp, type BuiltEvidence } from '../evidence/build.js';
import { createFixture, disposeFixture, gitInit, writeSetupFiles, type Fixture } from '../fixture/fixture.js';
import { guardEnv, refusalWarnings } from '../fixture/netguard.js';
import { isolationWarnings } from '../fixture/isolation.js';
import { NOISE_FILE, noiseWarnings } from '../mcp/noise.js';
import { judgeCell, memoryRefs, type StoredVerdictInput } from '../judge/cell.js';
import { netnsPrefix, networkWarning, type LoopbackBridge } from '../fixture/sandbox.js';
import { openBridge } from '../fixture/bridge.js';
import { fixtureScanPlan, stampFiles } from '../judge/fixture-files.js';
import { FixtureScan } from '../judge/scan.js';
import type { NetworkMode } from '../core/results.js';
import type { JudgePool } from '../judge/llm/pool.js';
import { replaySteps } from '../drive/replay.js';
import { failsRun, VIOLATING_WRITE_OPS, type JudgedAs, type VerdictInput } from '../judge/verdict.js';
import type { CallRecord } from '../mcp/recorder.js';
import { TargetError, TargetSession } from '../mcp/session.js';
import { proxyStopProblems } from '../mcp/proxy.js';
import { missingOps, opsNeeded, recallProbe, seedMemories, type MemoryHandle, type StepRecord } from '../ops/ops.js';
import { assertionApplies, type Scenario } from '../scenario/schema.js';
import type { ResolvedBin } from '../targets/resolve-bin.js';
import type { TargetDecl } from '../targets/schema.js';
import { Interrupted, MemevalError } from '../util/errors.js';
import { fillString } from '../util/template.js';
import { missingSeeds } from './seed-check.js';
import { providerUnsupported, startProviderForCell } from '../model/provider/cell.js';
import { writeDeclFiles } from '../fixture/decl-files.js';
import { writeFixtureModel } from '../model/provider/fixture-model.js';
import { storeUnsupported } from '../targets/applicability.js';
import { Teardown } from './teardown.js';

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

const WRITE_OPS = new Set(['remember', 'update', 'forget', 'curate']);

/** A probe session number no driver reaches. */
const PROBE_SESSION = 999;

/**
 * One cell, for every layer: fixture → target session through the recording point → seeding
 * (checked) → driver → stop and snapshot → evidence → judges → verdict. The driver is the only
 * part that differs. Teardown (servers, the driver's own processes, the fixture) always runs.
 */
export async function runCell(o: CellOptions): Promise<CellResult> {
  const t0 = performance.now();
  const { scenario, decl, driver } = o;
  const violation = scenario.deterministic.violation;
  const defence = driver.judgedAs === 'violation' ? violation?.defence : undefined;
  const claimed = defence !== undefined && (decl.claims as string[]).includes(defence);
  const startMs: number[] = [];
  const timings: Record<string, number> = {};
  let mark = performance.now();
  const lap = (stage: string) => {
    const now = performance.now();
    timings[stage] = Math.round(now - mark);
    mark = now;
  };
  let fixtureState = 'not created';
  const base = {
    cell_id: o.cellId,
    scenario: scenario.id,
    target: decl.name,
    phase: driver.phase,
    driver: driver.kind,
    defence,
    claimed,
    cell_dir: o.cellDir,
  };
  type Outcome = Pick<CellResult, 'verdict' | 'reason'> & Partial<Pick<CellResult, 'assertions' | 'stderr_tail' | 'error_code' | 'agent' | 'verdict_input' | 'judge_input' | 'evidence_sha256'>>;
  const records: StepRecord[] = [];
  // how this cell's servers ended when stopped: a crash at shutdown, a store lost at exit
  const shutdown: string[] = [];
  // the weakest guard any server of this cell ran under
  let network: NetworkMode | undefined;
  const sawNetwork = (m: NetworkMode) => {
    const rank: NetworkMode[] = ['isolated', 'guarded', 'open'];
    if (!network || rank.indexOf(m) > rank.indexOf(network)) network = m;
  };
  const finish = (r: Outcome, extraWarnings: string[] = []): CellResult => ({
    ...base,
    verdict: r.verdict,
    reason: r.reason,
    fails_run: failsRun(r.verdict, claimed),
    steps: records,
    assertions: r.assertions ?? [],
    fixture: fixtureState,
    stderr_tail: r.stderr_tail,
    ...(r.error_code ? { error_code: r.error_code } : {}),
    network,
    warnings: [...(network && networkWarning(network, decl.name) ? [networkWarning(network, decl.name)!] : []), ...refusalWarnings(join(o.cellDir, 'network.jsonl')), ...noiseWarnings(join(o.cellDir, NOISE_FILE)), ...isolationWarnings(), ...extraWarnings],
    duration_ms: Math.round(performance.now() - t0),
    server_start_ms: startMs.length ? startMs : undefined,
    timings_ms: timings,
    ...(shutdown.length ? { shutdown } : {}),
    ...(r.agent ? { agent: r.agent } : {}),
    ...(r.verdict_input ? { verdict_input: r.verdict_input, judge_input: r.judge_input, evidence_sha256: r.evidence_sha256 } : {}),
  });

  const lacking = missingOps(decl, opsNeeded(scenario, driver.steps));
  const unsupported =
    driver.unsupported?.() ??
    (lacking.length ? `target lacks op(s): ${lacking.join(', ')}` : undefined) ??
    providerUnsupported(scenario, decl) ??
    storeUnsupported(scenario, decl);
  if (unsupported) return finish({ verdict: 'unsupported', reason: unsupported });

  // a cell the pool starts after an interrupt makes nothing: no dir, no fixture
  if (o.signal?.aborted) return finish({ verdict: 'skipped', reason: 'run interrupted' });
  const callsLog = join(o.cellDir, 'calls.jsonl');
  try {
    mkdirSync(o.cellDir, { recursive: true });
    writeFileSync(callsLog, '');
  } catch (e) {
    // a full or read-only disk: this cell cannot keep evidence, the run goes on to say so
    return finish({ verdict: 'error', reason: `cannot write the cell dir ${o.cellDir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` });
  }
  const serverEnv = { ...guardEnv(join(o.cellDir, 'network.jsonl')), ...o.serverEnv };
  const teardown = new Teardown();
  const warnings: string[] = [];
  let evidence: BuiltEvidence | undefined;
  let session: TargetSession | undefined;
  let sessionNo = 0;
  let outcome: Outcome;
  let agentInfo: DriveOutcome['agent'];
  // the store file once its path is known (none: the store is not on disk)
  let storeFile: string | undefined;
  let shutdownStderr = '';

  try {
    const fixture: Fixture = await createFixture(`${scenario.id}-${decl.name}-${driver.label}`, o.keep);
    teardown.add('remove fixture', async () => {
      fixtureState = await disposeFixture(fixture, o.keep);
    });
    // loopback services of the host (the model provider) the target reaches from its namespace
    const bridges: LoopbackBridge[] = [];
    // every server of the cell starts here: none may start once the run is interrupted
    const startServer = (no: number, logFile: string, stderrName: string) => {
      if (o.signal?.aborted) throw new Interrupted('interrupted');
      return TargetSession.start({ decl, bin: o.bin, fixture, session: no, logFile, stderrFile: join(o.cellDir, stderrName), noiseFile: join(o.cellDir, NOISE_FILE), env: serverEnv, bridges });
    };
    const sessions: Sessions = {
      current: () => session,
      start: async () => {
        ++sessionNo;
        session = await startServer(sessionNo, callsLog, `stderr.${sessionNo}.log`);
        startMs.push(Math.round(session.startMs));
        sawNetwork(session.network);
        return session;
      },
      stop: async () => {
        const s = session;
        session = undefined;
        if (!s) return;
        const no = sessionNo;
        const before = fileSize(storeFile);
        await s.close();
        const after = fileSize(storeFile);
        const problems = [
          ...(s.stopProblem() ? [`server session ${no} ${s.stopProblem()}`] : []),
          ...(before && !after ? [`the store ${relative(fixture.root, storeFile!)} held ${before} bytes before server session ${no} stopped and is ${after === undefined ? 'gone' : 'empty'} after`] : []),
        ];
        if (problems.length) (shutdown.push(...problems), (shutdownStderr ||= s.stderr()));
        if (s.stopWarning()) warnings.push(`server session ${no} ${s.stopWarning()}`);
      },
    };
    teardown.add('stop target', () => sessions.stop());
    if (driver.cleanup) teardown.add(`stop ${driver.kind} driver`, () => driver.cleanup!());

    // the model provider a target is pointed at through {{provider}}: up before the target, down after the probe
    const provider = await startProviderForCell({ scenario, decl, cellDir: o.cellDir, phase: driver.judgedAs });
    if (provider) {
      teardown.add('stop model provider', provider.stop);
      Object.assign(fixture.vars, provider.vars);
      // the provider listens on the host's loopback; a target in its own network namespace
      // reaches it through a bridge, at the same address
      if (netnsPrefix()) {
        const bridge = await openBridge(Number(new URL(provider.vars.provider).port));
        teardown.add('close provider bridge', bridge.close);
        bridges.push(bridge);
      }
    }
    await writeDeclFiles(fixture, decl.fixture.files, { ...fixture.vars, package_dir: o.bin.packageDir });
    await writeFixtureModel({ scenario, decl, vars: fixture.vars, root: fixture.root });
    if (decl.fixture.git_init) await gitInit(fixture, decl.fixture.git_remote);
    await writeSetupFiles(fixture, scenario.setup.files);
    const storePath = fillString(decl.store.path ?? '', fixture.vars);
    if (decl.store.format !== 'none') storeFile = storePath;
    // what memeval itself wrote into the fixture: `absent` leaves these out while nothing changes them
    const memevalWrote = stampFiles(fixture.root);
    lap('fixture');

    // seed through the target's real write path, then check the seeds are really there
    const handles = new Map<string, MemoryHandle>();
    // a driver starts the server when it first needs it: a phase with nothing to do starts none
    if (scenario.setup.memories.length) {
      await seedMemories(await sessions.start(), decl, scenario.setup.memories, handles, records);
      const seeds = scenario.setup.memories.map((m) => ({ ref: m.ref, handle: handles.get(m.ref)! }));
      let missing = missingSeeds(decl, storePath, seeds, o.cellDir, readCalls(callsLog));
      if (missing.length) {
        // a server may write its store only on exit: look again once it has stopped
        await sessions.stop();
        missing = missingSeeds(decl, storePath, seeds, o.cellDir, readCalls(callsLog));
        if (missing.length) throw new SetupError(missing.map((ref) => `setup memory "${ref}" was not stored by the target`).join('; '));
        warnings.push('the store held the setup memories only after the server exited; the phase runs in a new server session');
      }
    }
    const env = { scenario, decl, bin: o.bin, fixture, cellDir: o.cellDir, callsLog, serverEnv, bridges, handles, records, sessions, warnings, signal: o.signal };
    // setup steps (e.g. searches that build a retrieval history) run before any driver, recorded as setup
    if (scenario.setup.steps.length) await replaySteps(env, scenario.setup.steps, 'setup');
    if (!driver.usesSession) await sessions.stop();
    lap('seed');

    const drive = await driver.drive(env);
    agentInfo = drive.agent;
    if (drive.network) sawNetwork(drive.network);
    await sessions.stop();
    // the servers an agent started through the proxy: how they ended when it stopped them
    shutdown.push(...proxyStopProblems(callsLog));
    lap('drive');

    if (drive.invalid.length) {
      outcome = { verdict: 'invalid', reason: drive.invalid.join('; '), agent: agentInfo };
    } else {
      const calls = readCalls(callsLog);
      const storeProblem = missingStore(decl, storePath, fixture, calls);
      if (storeProblem) throw new SetupError(storeProblem);
      // judges read a copy taken after the server exited
      // provider_calls holds what the phase asked; the recall probe below asks the provider too
      evidence = buildEvidence(decl, storePath, o.cellDir, calls, provider ? [...provider.calls()] : undefined);
      teardown.add('close evidence', () => evidence?.close());
      lap('evidence');
      // every file the fixture holds beside the store, in every layer; read now, before a recall probe's server can write there
      const plan = fixtureScanPlan({ fixture, profileDirs: drive.ownDirs ?? [], setupFiles: scenario.setup.files, storePath, unchanged: memevalWrote });
      const fileScan = new FixtureScan(plan.files, plan.leftOut);
      const assertions = scenario.assertions.filter((a) => assertionApplies(a, driver.judgedAs, driver.realModel));
      fileScan.prescan(assertions.flatMap((a) => (a.kind === 'absent' ? [{ text: a.text, caseSensitive: a.case_sensitive }] : [])));
      const probe = recallProbe(decl, async () => startServer(PROBE_SESSION, join(o.cellDir, 'probe-calls.jsonl'), 'stderr.probe.log'));
      teardown.add('stop recall probe', probe.close);
      // what the verdict and the judges read, kept in the result so that rejudge reads the same
      const verdictInput = { ...storedVerdictInput({ judgedAs: driver.judgedAs, expectation: violation?.expectation, decl, calls, vacuous: drive.vacuous }), ...(shutdown.length ? { shutdown } : {}) };
      const judgeInput = { memory_refs: memoryRefs(handles), transcript: drive.transcript, ...(plan.files.length ? { fixture_files: plan.files.length } : {}) };
      const v = await judgeCell({
        assertions: assertions.map((a) => ({ judge: a })),
        verdictInput,
        judgeInput,
        ctx: { evidence, recall: probe.recall, judgeModel: o.judgePool?.defaultModel ?? null, judgePool: o.judgePool, scenarioDir: o.scenarioDir, fixtureDir: fixture.project, fixture, files: plan.files, fileScan },
        cellDir: o.cellDir,
      });
      lap('judge');
      if (o.signal?.aborted) throw new Interrupted('interrupted');
      outcome = {
        verdict: v.verdict,
        reason: v.reason,
        assertions: v.judgments,
        agent: agentInfo,
        stderr_tail: probe.failure()?.stderrTail || (shutdown.length ? shutdownStderr : '') || undefined,
        verdict_input: verdictInput,
        judge_input: judgeInput,
        evidence_sha256: evidence.sha256,
      };
    }
  } catch (e) {
    const interrupted = e instanceof Interrupted || Boolean(o.signal?.aborted);
    outcome = {
      verdict: interrupted ? 'skipped' : 'error',
      reason: interrupted ? 'run interrupted' : (e as Error).message,
      error_code: !interrupted && e instanceof MemevalError ? e.code : undefined,
      stderr_tail: (e instanceof TargetError ? e.stderrTail : session?.stderr()) || undefined,
      agent: agentInfo,
    };
  }
  mark = performance.now();
  await teardown.run();
  lap('teardown');
  return finish(outcome, [...warnings, ...shutdown.map((p) => `shutdown: ${p}`), ...teardown.failures.map((f) => `teardown: ${f}`)]);
}

function fileSize(file: string | undefined): number | undefined {
  if (!file) return undefined;
  try {
    return statSync(file).size;
  } catch {
    return undefined;
  }
}

/**
 * Everything phaseVerdict reads, as plain fields (so a cell result can keep it and a re-judge
 * read it back), from the recorded calls of the phase: memeval's steps or the agent's calls.
 * Setup calls (seeding, setup steps) and the handshake are not the phase's.
 */
export function storedVerdictInput(o: {
  judgedAs: JudgedAs;
  expectation?: VerdictInput['expectation'];
  decl: TargetDecl;
  calls: CallRecord[];
  vacuous?: string;
}): StoredVerdictInput {
  const opOf = toolToOp(o.decl);
  const inPhase = (c: CallRecord) => (c.method ?? 'tools/call') === 'tools/call' && (c.stage === 'step' || c.stage === 'agent');
  const phaseCalls = o.calls.filter(inPhase);
  // seq: the row of the evidence `calls` table (the call's place in the log, 1-based)
  const writes = o.calls.flatMap((c, i) => {
    const op = c.op ?? opOf.get(c.tool);
    return inPhase(c) && op && VIOLATING_WRITE_OPS.has(op) ? [{ seq: i + 1, op, tool: c.tool, refused: c.is_error }] : [];
  });
  return {
    judgedAs: o.judgedAs,
    expectation: o.expectation,
    refusedCalls: phaseCalls.filter((c) => c.is_error).length,
    vacuous: o.vacuous,
    ...(o.judgedAs === 'violation' ? { violationWrites: writes } : {}),
  };
}

/** A failure of the cell's setup or evidence that the target caused: the cell is `error`. */
export class SetupError extends MemevalError {
  constructor(message: string) {
    super('SETUP', message);
  }
}

/**
 * A store that does not exist after calls that wrote to it is not an empty store: the
 * declaration points at the wrong file, or the server kept nothing. Names what does exist.
 */
function missingStore(decl: TargetDecl, storePath: string, fixture: Fixture, calls: CallRecord[]): string | undefined {
  if (decl.store.format === 'none' || existsSync(storePath)) return undefined;
  const opOf = toolToOp(decl);
  const writes = calls.filter((c) => (c.method ?? 'tools/call') === 'tools/call' && !c.is_error && WRITE_OPS.has(c.op ?? opOf.get(c.tool) ?? '')).length;
  if (!writes) return undefined;
  const found = listFiles(fixture.data, 40).map((f) => relative(fixture.root, f));
  return `store ${storePath} does not exist after ${writes} accepted write call(s); files in the data dir: ${found.length ? found.join(', ') : 'none'} (check store.path in the target declaration)`;
}

function listFiles(dir: string, max: number): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    if (!existsSync(d)) return;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (out.length >= max) return;
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(p);
    }
  };
  walk(dir);
  return out;
}
