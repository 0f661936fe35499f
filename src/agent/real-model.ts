import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFixture, disposeFixture, gitInit, isolatedEnv, writeSetupFiles } from '../fixture/fixture.js';
import { networkWarning, type NetworkMode } from '../fixture/sandbox.js';
import { writeLaunchFile } from '../mcp/proxy.js';
import { guardEnv, refusalWarnings } from '../fixture/netguard.js';
import { runJudges } from '../judge/judges.js';
import { fixtureFilesToScan } from '../judge/fixture-files.js';
import { failsRun, phaseVerdict, type Verdict } from '../judge/verdict.js';
import { handlesAfter, splitSessions, type Script } from '../model/policy.js';
import { ScriptedModelServer } from '../model/server.js';
import { missingOps, opsNeeded, recallProbe, seedMemories, type MemoryHandle, type StepRecord } from '../ops/ops.js';
import type { AgentRunInfo, PhaseResult, TurnRecord } from '../replay/phase.js';
import type { RunTarget } from '../replay/run.js';
import type { LoadedScenario } from '../scenario/loader.js';
import { assertionApplies, type Step } from '../scenario/schema.js';
import { buildEvidence, type Evidence } from '../evidence/build.js';
import type { CallRecord } from '../mcp/recorder.js';
import { serverLaunch, TargetError, TargetSession } from '../mcp/session.js';
import { Interrupted } from '../util/errors.js';
import { fillString } from '../util/template.js';
import { assertAllowed, type GateDecision } from './cost-gate.js';
import { invokeAgent } from './invoke.js';
import { selfCommand } from './self.js';
import { addUsage, ZERO_USAGE, type AgentContext, type AgentDriver, type TurnParse } from './types.js';

export interface AgentCellOptions {
  gate: GateDecision;
  s: LoadedScenario;
  t: RunTarget;
  driver: AgentDriver;
  agentBin: string;
  agentVersion: string;
  model: string;
  baseUrl?: string;
  policy: 'well-behaved' | 'violation';
  repeat: number;
  maxTurns?: number;
  promptTimeoutMs: number;
  cellDir: string;
  keep: boolean;
  signal?: AbortSignal;
}

function readCalls(file: string): CallRecord[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as CallRecord);
}

/**
 * One scenario × target through a real agent: seed the store, register the target (behind
 * memeval's recording proxy) in the agent's profile, run each session's prompts, then judge
 * the store copy, the calls log and the final answer. A turn that did not really run is invalid.
 */
export async function runAgentCell(o: AgentCellOptions): Promise<PhaseResult> {
  assertAllowed(o.gate); // nothing model-shaped starts without the gate's say-so
  const scripted = o.gate.scripted;
  const t0 = performance.now();
  const { scenario } = o.s;
  const decl = o.t.decl;
  const rm = scenario.real_model!;
  const violation = scenario.deterministic.violation;
  const judgedAs = scripted && o.policy === 'violation' ? 'violation' : 'real-model';
  const steps: Step[] = !scripted ? [] : o.policy === 'violation' ? (violation?.steps ?? []) : scenario.deterministic.well_behaved;
  const defence = judgedAs === 'violation' ? violation?.defence : undefined;
  const claimed = defence !== undefined && decl.claims.includes(defence);
  const agent: AgentRunInfo = {
    agent: o.driver.name,
    agent_version: o.agentVersion,
    model: scripted ? 'scripted' : o.model,
    scripted,
    policy: scripted ? o.policy : null,
    repeat: o.repeat,
    memory_off: o.driver.memoryOff,
    instructions_off: o.driver.instructionsOff,
    turns: [],
    usage: { ...ZERO_USAGE },
  };
  let network: NetworkMode | undefined;
  const finish = (r: { verdict: Verdict; reason: string; steps?: StepRecord[]; assertions?: PhaseResult['assertions']; fixture: string; stderr_tail?: string }): PhaseResult => ({
    scenario: scenario.id,
    target: decl.name,
    phase: 'real-model',
    verdict: r.verdict,
    reason: r.reason,
    fails_run: failsRun(r.verdict, claimed),
    defence,
    claimed,
    steps: r.steps ?? [],
    assertions: r.assertions ?? [],
    fixture: r.fixture,
    cell_dir: o.cellDir,
    stderr_tail: r.stderr_tail,
    network,
    warnings: [...(network ? [networkWarning(network, decl.name)].filter((w): w is string => !!w) : []), ...refusalWarnings(join(o.cellDir, 'network.jsonl'))],
    duration_ms: Math.round(performance.now() - t0),
    agent,
  });

  if (scripted && o.policy === 'violation' && !violation)
    return finish({ verdict: 'unsupported', reason: 'the scenario has no violation steps to replay', fixture: 'not created' });
  const missing = missingOps(decl, opsNeeded(scenario, steps));
  if (missing.length) return finish({ verdict: 'unsupported', reason: `target lacks op(s): ${missing.join(', ')}`, fixture: 'not created' });

  mkdirSync(join(o.cellDir, 'transcripts'), { recursive: true });
  const callsLog = join(o.cellDir, 'calls.jsonl');
  writeFileSync(callsLog, '');
  const netLog = join(o.cellDir, 'network.jsonl');
  const fixture = await createFixture(`${scenario.id}-${decl.name}-${o.driver.name}`);
  const server = scripted ? new ScriptedModelServer() : undefined;
  let evidence: Evidence | undefined;
  const setupRecords: StepRecord[] = [];
  try {
    if (decl.fixture.git_init) await gitInit(fixture, decl.fixture.git_remote);
    await writeSetupFiles(fixture, scenario.setup.files);

    // seed through the target's real write path, before the agent arrives
    let handles = new Map<string, MemoryHandle>();
    if (scenario.setup.memories.length) {
      const seed = await TargetSession.start({ decl, bin: o.t.bin, fixture, session: 0, logFile: callsLog, env: guardEnv(netLog) });
      await seedMemories(seed, decl, scenario.setup.memories, handles, setupRecords).finally(() => seed.close());
    }

    const baseUrl = server ? await server.start() : o.baseUrl;
    const launch = serverLaunch(decl, o.t.bin, fixture, guardEnv(netLog));
    network = launch.network;
    const launchFile = join(o.cellDir, 'server-launch.json');
    writeLaunchFile(launchFile, launch);
    const self = selfCommand();
    const ctx: AgentContext = {
      fixture,
      profileDir: join(fixture.root, 'agent'),
      bin: o.agentBin,
      mcp: {
        command: self.command,
        // the server's launch and environment come from the file, never from the agent
        args: [...self.args, 'mcp-proxy', '--log', callsLog, '--session', 'auto', '--launch', launchFile],
        env: isolatedEnv(fixture),
      },
      baseUrl,
      model: scripted ? 'scripted' : o.model,
      scripted,
      maxTurns: o.maxTurns ?? rm.max_turns,
    };
    mkdirSync(ctx.profileDir, { recursive: true });
    await o.driver.prepare(ctx);

    const chunks = splitSessions(steps);
    for (const [si, session] of rm.sessions.entries()) {
      // extra chunks (more restarts than sessions) go to the last session
      const chunk = si === rm.sessions.length - 1 ? chunks.slice(si).flat() : (chunks[si] ?? []);
      const script: Script = { decl, steps: chunk, handles };
      const callsBefore = readCalls(callsLog).length;
      let conversationId: string = randomUUID();
      let previous: TurnParse | undefined;
      for (const [pi, prompt] of session.prompts.entries()) {
        if (o.signal?.aborted) throw new Interrupted();
        if (server) server.script = script;
        const requestsBefore = server?.log.length ?? 0;
        const missingBefore = server?.missingTools.size ?? 0;
        const inv = o.driver.invoke(ctx, prompt, { first: pi === 0, id: conversationId });
        const stem = `s${si + 1}p${pi + 1}`;
        const r = await invokeAgent(ctx.bin, inv, {
          timeoutMs: o.promptTimeoutMs,
          stdoutFile: join(o.cellDir, 'transcripts', `${stem}.stdout`),
          stderrFile: join(o.cellDir, 'transcripts', `${stem}.stderr`),
          signal: o.signal,
        });
        if (o.signal?.aborted) throw new Interrupted();
        const parsed = o.driver.parse(r.stdout, r.exitCode, previous);
        previous = parsed;
        if (pi === 0 && parsed.conversationId) conversationId = parsed.conversationId;
        const invalid = [...parsed.invalid];
        if (r.timedOut) invalid.push(`timed out after ${o.promptTimeoutMs} ms`);
        // a failed exit the agent's output does not explain: its stderr does
        if (r.exitCode !== 0 && !invalid.length) invalid.push(`exit ${r.exitCode ?? r.signal}: ${r.stderr.trim().split('\n').slice(-2).join(' ').slice(0, 300)}`);
        let startup: number | undefined;
        let requests: number | undefined;
        if (server) {
          const mine = server.modelRequests(requestsBefore);
          requests = mine.length;
          if (!requests) invalid.push('no request reached the model');
          else startup = Date.parse(mine[0].ts) - r.startedAt;
          const newlyMissing = [...server.missingTools].slice(missingBefore);
          if (newlyMissing.length) invalid.push(`the agent did not offer the memory tool(s) ${newlyMissing.join(', ')}: the MCP server did not load`);
        }
        const logged = readCalls(callsLog).slice(callsBefore);
        agent.turns.push({
          session: si + 1,
          prompt: pi + 1,
          exit_code: r.exitCode,
          ms: r.ms,
          startup_ms: startup,
          model_requests: requests,
          final_text: parsed.finalText,
          tool_calls: parsed.toolCalls.map((c) => ({ ...c, logged: logged.some((l) => l.tool === c.tool) })),
          usage: parsed.usage,
          stdout_file: join('transcripts', `${stem}.stdout`),
          stderr_file: join('transcripts', `${stem}.stderr`),
          invalid,
        });
        // an agent prices tokens by its model name; for the scripted model that price is fiction
        if (scripted) parsed.usage.cost_usd = 0;
        agent.usage = addUsage(agent.usage, parsed.usage);
      }
      // memories named in this session carry over to the next (ids come from the logged results)
      const results = readCalls(callsLog).slice(callsBefore).filter((c) => c.stage === 'agent');
      handles = handlesAfter(script, results.map((c) => ({ text: c.result_text, isError: c.is_error })));
    }
    await server?.stop();

    const invalid = agent.turns.flatMap((t) => t.invalid.map((i) => `session ${t.session} prompt ${t.prompt}: ${i}`));
    if (invalid.length) return finish({ verdict: 'invalid', reason: invalid.join('; '), steps: setupRecords, fixture: await disposeFixture(fixture, o.keep) });

    const storePath = fillString(decl.store.path, fixture.vars);
    evidence = buildEvidence(decl, storePath, o.cellDir, readCalls(callsLog));
    const probe = recallProbe(decl, () =>
      TargetSession.start({ decl, bin: o.t.bin, fixture, session: 999, logFile: join(o.cellDir, 'probe-calls.jsonl'), env: guardEnv(netLog) }),
    );
    const assertions = scenario.assertions.filter((a) => assertionApplies(a, 'real-model'));
    const judgments = await runJudges(assertions, {
      evidence,
      transcript: agent.turns[agent.turns.length - 1]?.final_text ?? '',
      recall: probe.recall,
      fixture,
      // memory kept beside the server under test: new project files, the agent's own memory files
      files: fixtureFilesToScan({ fixture, profileDirs: [ctx.profileDir, fixture.home], setupFiles: scenario.setup.files, storePath }),
    }).finally(probe.close);
    const v = phaseVerdict({ phase: judgedAs, expectation: violation?.expectation, refusedSteps: 0, judgments });
    return finish({ ...v, steps: setupRecords, assertions: judgments, fixture: await disposeFixture(fixture, o.keep) });
  } catch (e) {
    await server?.stop().catch(() => {});
    const interrupted = e instanceof Interrupted || Boolean(o.signal?.aborted);
    return finish({
      verdict: interrupted ? 'skipped' : 'error',
      reason: interrupted ? 'run interrupted' : (e as Error).message,
      steps: setupRecords,
      fixture: await disposeFixture(fixture, o.keep),
      stderr_tail: e instanceof TargetError ? e.stderrTail : undefined,
    });
  } finally {
    evidence?.close();
  }
}

