import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFixture, disposeFixture, gitInit, writeSetupFiles } from '../fixture/fixture.js';
import { runJudges } from '../judge/judges.js';
import type { Judgment } from '../judge/judgment.js';
import { failsRun, phaseVerdict, type Verdict } from '../judge/verdict.js';
import { resolveRefs } from '../scenario/refs.js';
import { assertionApplies, type DeterministicPhase, type Phase, type Scenario, type Step } from '../scenario/schema.js';
import type { TokenUsage } from '../agent/types.js';
import { buildEvidence, type Evidence } from '../evidence/build.js';
import type { CallRecord } from '../mcp/recorder.js';
import type { ResolvedBin } from '../targets/resolve-bin.js';
import type { TargetDecl } from '../targets/schema.js';
import { TargetError, TargetSession } from '../mcp/session.js';
import { fillString } from '../util/template.js';
import { guardEnv, refusalWarnings } from '../fixture/netguard.js';
import { networkWarning, type NetworkMode } from '../fixture/sandbox.js';
import { Interrupted } from '../util/errors.js';
import { afterStep, clip, missingOps, opsNeeded, recallProbe, roundMs, runOp, seedMemories, stepCall, type MemoryHandle, type StepRecord } from '../ops/ops.js';

/** What a real-model cell adds: the agent, its turns and their token usage. */
export interface AgentRunInfo {
  agent: string;
  agent_version: string;
  model: string;
  /** true when memeval's scripted model stood in for the model */
  scripted: boolean;
  policy: 'well-behaved' | 'violation' | null;
  repeat: number;
  memory_off: Record<string, string>;
  instructions_off?: Record<string, string>;
  turns: TurnRecord[];
  usage: TokenUsage;
}

export interface TurnRecord {
  session: number;
  prompt: number;
  exit_code: number | null;
  ms: number;
  /** spawn to the first model request (scripted model only) */
  startup_ms?: number;
  model_requests?: number;
  final_text: string;
  tool_calls: { tool: string; ok: boolean; logged: boolean }[];
  usage: TokenUsage;
  stdout_file: string;
  stderr_file: string;
  invalid: string[];
}

export interface PhaseResult {
  scenario: string;
  target: string;
  phase: Phase;
  verdict: Verdict;
  reason: string;
  fails_run: boolean;
  defence?: string;
  claimed?: boolean;
  steps: StepRecord[];
  assertions: Judgment[];
  fixture: string;
  cell_dir: string;
  stderr_tail?: string;
  network?: NetworkMode;
  warnings: string[];
  duration_ms: number;
  /** spawn to MCP initialize done, per server session of this phase */
  server_start_ms?: number[];
  agent?: AgentRunInfo;
}

export interface PhaseOptions {
  scenario: Scenario;
  decl: TargetDecl;
  bin: ResolvedBin;
  phase: DeterministicPhase;
  cellDir: string;
  keep: boolean;
  /** extra environment for the server process */
  serverEnv?: Record<string, string>;
  signal?: AbortSignal;
}

/** Run one phase of one scenario against one target in a fresh fixture, and judge it. */
export async function runPhase(o: PhaseOptions): Promise<PhaseResult> {
  const t0 = performance.now();
  const { scenario, decl, phase } = o;
  const violation = scenario.deterministic.violation;
  const steps: Step[] = phase === 'well-behaved' ? scenario.deterministic.well_behaved : (violation?.steps ?? []);
  const assertions = scenario.assertions.filter((a) => assertionApplies(a, phase));
  const defence = phase === 'violation' ? violation?.defence : undefined;
  const claimed = defence !== undefined && decl.claims.includes(defence);
  const base = { scenario: scenario.id, target: decl.name, phase, defence, claimed, cell_dir: o.cellDir, warnings: [] as string[] };
  const startMs: number[] = [];
  let network: NetworkMode | undefined;
  const finish = (r: Omit<PhaseResult, keyof typeof base | 'duration_ms' | 'fails_run'>): PhaseResult => ({
    ...base,
    ...r,
    server_start_ms: startMs.length ? startMs : undefined,
    network,
    warnings: [...[network && networkWarning(network, decl.name)].filter((w): w is string => !!w), ...refusalWarnings(join(o.cellDir, 'network.jsonl'))],
    fails_run: failsRun(r.verdict, claimed),
    duration_ms: Math.round(performance.now() - t0),
  });

  const missing = missingOps(decl, opsNeeded(scenario, steps));
  if (missing.length)
    return finish({ verdict: 'unsupported', reason: `target lacks op(s): ${missing.join(', ')}`, steps: [], assertions: [], fixture: 'not created' });

  mkdirSync(o.cellDir, { recursive: true });
  const logFile = join(o.cellDir, 'calls.jsonl');
  writeFileSync(logFile, '');
  const netLog = join(o.cellDir, 'network.jsonl');
  const serverEnv = { ...guardEnv(netLog), ...o.serverEnv };
  const fixture = await createFixture(`${scenario.id}-${decl.name}-${phase}`);
  const records: StepRecord[] = [];
  const calls: CallRecord[] = [];
  let session: TargetSession | undefined;
  let sessionNo = 0;
  let evidence: Evidence | undefined;
  const handles = new Map<string, MemoryHandle>();
  const startSession = async () => {
    if (o.signal?.aborted) throw new Interrupted('interrupted');
    session = await TargetSession.start({
      decl,
      bin: o.bin,
      fixture,
      session: ++sessionNo,
      logFile,
      stderrFile: join(o.cellDir, `stderr.${sessionNo}.log`),
      env: serverEnv,
    });
    startMs.push(Math.round(session.startMs));
    network = session.network;
  };
  const stopSession = async () => {
    if (!session) return;
    const s = session;
    session = undefined;
    calls.push(...s.recorder.records);
    await s.close();
  };

  try {
    if (decl.fixture.git_init) await gitInit(fixture, decl.fixture.git_remote);
    await writeSetupFiles(fixture, scenario.setup.files);
    await startSession();

    await seedMemories(session!, decl, scenario.setup.memories, handles, records);

    const lookup = (name: string, field?: string) => {
      const h = handles.get(name);
      if (!h) throw new Error(`unknown ref "${name}"`);
      return field ? (h as unknown as Record<string, unknown>)[field] : h.id;
    };

    for (const [i, step] of steps.entries()) {
      if (o.signal?.aborted) throw new Interrupted('interrupted');
      const rec: StepRecord = { index: i, stage: 'step', op: step.op, tools: [], ok: true, ms: 0, note: step.note };
      if (step.op === 'restart') {
        const t = performance.now();
        await stopSession();
        await startSession();
        rec.ms = roundMs(performance.now() - t);
      } else if (step.op === 'tool') {
        const args = resolveRefs(step.args, lookup) as Record<string, unknown>;
        const r = await session!.callTool(step.tool, args, { stage: 'step' });
        Object.assign(rec, { tools: [step.tool], ok: r.ok, ms: roundMs(r.ms), result: clip(r.text) });
      } else {
        const { op, vars, handle } = stepCall(decl, step, handles);
        const r = await runOp(session!, decl, op, vars, 'step');
        Object.assign(rec, { tools: r.tools, ok: r.ok, ms: roundMs(r.ms), result: clip(r.text) });
        if (r.ok) afterStep(step, handle, r.id, handles);
      }
      records.push(rec);
    }
    await stopSession();

    // judges read a copy taken after the server exited
    evidence = buildEvidence(decl, fillString(decl.store.path, fixture.vars), o.cellDir, calls);
    const probe = recallProbe(decl, () =>
      TargetSession.start({ decl, bin: o.bin, fixture, session: sessionNo + 1, logFile: join(o.cellDir, 'probe-calls.jsonl'), env: serverEnv }),
    );
    const judgments = await runJudges(assertions, { evidence, recall: probe.recall, fixture }).finally(probe.close);

    const refused = records.filter((r) => r.stage === 'step' && !r.ok).length;
    const v = phaseVerdict({ phase, expectation: violation?.expectation, refusedSteps: refused, judgments });
    return finish({ ...v, steps: records, assertions: judgments, fixture: await disposeFixture(fixture, o.keep) });
  } catch (e) {
    const stderrTail = e instanceof TargetError ? e.stderrTail : session?.stderr();
    await stopSession().catch(() => {});
    const interrupted = e instanceof Interrupted || o.signal?.aborted;
    return finish({
      verdict: interrupted ? 'skipped' : 'error',
      reason: interrupted ? 'run interrupted' : (e as Error).message,
      steps: records,
      assertions: [],
      fixture: await disposeFixture(fixture, o.keep),
      stderr_tail: stderrTail || undefined,
    });
  } finally {
    evidence?.close();
  }
}

