import { toolToOp } from '../evidence/build.js';
import { servedFaultRules } from '../evidence/provider-calls.js';
import type { DriveOutcome, Driver } from '../drive/types.js';
import { judgeCell, memoryRefs, type StoredVerdictInput } from '../judge/cell.js';
import { fixtureScanPlan } from '../judge/fixture-files.js';
import type { JudgeContext } from '../judge/context.js';
import type { JudgePool } from '../judge/llm/pool.js';
import { FixtureScan } from '../judge/scan.js';
import type { JudgedAs, VerdictInput } from '../judge/verdict.js';
import { DEFENDING_REFUSALS } from '../scenario/step-ops.js';
import { isToolCall, type CallRecord } from '../mcp/calls-log.js';
import { storeRecallProbes } from '../evidence/recall-probes.js';
import { recallProbe } from '../ops/ops.js';
import { absentTexts, probeQueries } from '../scenario/kinds.js';
import { runRecallProbes } from './probes.js';
import { unservedFaults } from '../model/provider/faults.js';
import { assertionApplies, type Scenario } from '../scenario/schema.js';
import type { TargetDecl } from '../targets/schema.js';
import { answerContext } from './answer-context.js';
import type { CollectedEvidence } from './evidence.js';
import type { PreparedFixture } from './prepare.js';
import type { Outcome } from './result.js';
import type { CellSessions } from './sessions.js';
import type { Teardown } from './teardown.js';
import type { CellTrail } from './trail.js';

export interface LiveJudgeOptions {
  scenario: Scenario;
  decl: TargetDecl;
  /** whose verdict rules and assertions apply (judgedAs, realModel) */
  driver: Pick<Driver, 'judgedAs' | 'realModel'>;
  prepared: PreparedFixture;
  drive: DriveOutcome;
  collected: CollectedEvidence;
  sessions: CellSessions;
  trail: CellTrail;
  cellDir: string;
  judgePool?: JudgePool;
  scenarioDir?: string;
  /** runs a `command` judge's command in this cell's fixture */
  command?: JudgeContext['command'];
}

/**
 * The judge stage of a live cell: gather what only a live cell has (the fixture's files, read
 * before a recall probe's server can write there; the recall probes, one per distinct query,
 * stored in the evidence), then `judgeCell`, the one judging rejudge uses too. The outcome keeps verdict_input and judge_input, so that
 * rejudge reads the same.
 */
export async function judgeLive(o: LiveJudgeOptions, teardown: Teardown): Promise<Outcome> {
  const { scenario, decl, drive, trail } = o;
  const { fixture, storePath, memevalWrote } = o.prepared;
  const { evidence, calls } = o.collected;
  // every file the fixture holds beside the store, in every layer
  const plan = fixtureScanPlan({
    fixture,
    profileDirs: drive.ownDirs ?? [],
    setupFiles: scenario.setup.files,
    storePath,
    unchanged: memevalWrote,
  });
  const fileScan = new FixtureScan(plan.files, plan.leftOut);
  const assertions = scenario.assertions.filter((a) => assertionApplies(a, o.driver.judgedAs, o.driver.realModel));
  fileScan.prescan(absentTexts(assertions));
  // each distinct query once, after the snapshot, kept in the evidence: every judge reads that one answer
  const probe = recallProbe(decl, () => o.sessions.probe());
  teardown.add('stop recall probe', probe.close);
  const probes = await runRecallProbes(probeQueries(assertions), probe.recall);
  const sha256 = probes.length ? storeRecallProbes(evidence.dir, probes) : evidence.sha256;
  const verdictInput = {
    ...storedVerdictInput({
      judgedAs: o.driver.judgedAs,
      expectation: scenario.deterministic.violation?.expectation,
      decl,
      calls,
      vacuous: drive.vacuous,
    }),
    ...(trail.shutdown.length ? { shutdown: trail.shutdown } : {}),
    ...unservedField(o.prepared.provider?.faults ?? [], evidence.db),
  };
  const judgeInput = {
    memory_refs: memoryRefs(drive.handles),
    transcript: drive.transcript,
    ...(drive.agent ? { answer_context: answerContext(scenario, drive.agent) } : {}),
    ...(plan.files.length ? { fixture_files: plan.files.length } : {}),
  };
  const v = await judgeCell({
    assertions: assertions.map((a) => ({ judge: a })),
    verdictInput,
    judgeInput,
    ctx: {
      evidence,
      judgeModel: o.judgePool?.defaultModel ?? null,
      judgePool: o.judgePool,
      scenarioDir: o.scenarioDir,
      fixtureDir: fixture.project,
      fixture,
      command: o.command,
      files: plan.files,
      fileScan,
    },
    cellDir: o.cellDir,
  });
  return {
    verdict: v.verdict,
    reason: v.reason,
    assertions: v.judgments,
    agent: drive.agent,
    stderr_tail: probe.failure()?.stderrTail || (trail.shutdown.length ? trail.shutdownStderr : '') || undefined,
    verdict_input: verdictInput,
    judge_input: judgeInput,
    evidence_sha256: sha256,
  };
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
  // a call never answered because memeval killed the server (a kill step) was neither refused
  // nor accepted: it counts as neither a refusal in a well-behaved phase nor a defence
  const inPhase = (c: CallRecord) => isToolCall(c) && (c.stage === 'step' || c.stage === 'agent') && !c.killed;
  const phaseCalls = o.calls.filter(inPhase);
  // seq: the row of the evidence `calls` table (the call's place in the log, 1-based)
  const writes = o.calls.flatMap((c, i) => {
    const op = c.op ?? opOf.get(c.tool);
    // only a call that would have carried the violation into the store defends when refused (scenario/step-ops.ts)
    return inPhase(c) && op && DEFENDING_REFUSALS.has(op)
      ? [{ seq: i + 1, op, tool: c.tool, refused: c.is_error }]
      : [];
  });
  return {
    judgedAs: o.judgedAs,
    expectation: o.expectation,
    refusedCalls: phaseCalls.filter((c) => c.is_error).length,
    vacuous: o.vacuous,
    ...(o.judgedAs === 'violation' ? { violationWrites: writes } : {}),
  };
}

/**
 * The scenario's required provider faults the evidence shows were never served (the target
 * never sent the request they were meant for): a verdict must not read as "handled the fault".
 */
function unservedField(
  faults: Parameters<typeof unservedFaults>[0],
  db: Parameters<typeof servedFaultRules>[0],
): { unservedFaults?: string[] } {
  if (!faults.length) return {};
  const missing = unservedFaults(faults, servedFaultRules(db));
  return missing.length ? { unservedFaults: missing } : {};
}
