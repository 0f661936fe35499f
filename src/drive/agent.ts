import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { finishReason } from '../core/finish-reason.js';
import type { AgentRunInfo, NetworkMode, ScriptedPolicy, TurnRecord } from '../core/results.js';
import { assertAllowed, type GateDecision } from '../agent/cost-gate.js';
import { invokeAgent, type InvokeResult } from '../agent/invoke.js';
import { preflight } from '../agent/preflight.js';
import { selfCommand } from '../agent/self.js';
import {
  addUsage,
  ZERO_USAGE,
  type AgentContext,
  type AgentAdapter,
  type McpLaunch,
  type TurnParse,
} from '../agent/types.js';
import { isToolCall, readCalls, type CallRecord } from '../mcp/calls-log.js';
import { cappedCalls, proxiesSettled, writeLaunchFile } from '../mcp/proxy.js';
import { serverLaunch } from '../mcp/session.js';
import { pinsFile } from '../mcp/store-pins.js';
import { isolatedEnv } from '../fixture/fixture.js';
import type { MemoryHandle } from '../ops/ops.js';
import { handlesAfter, instructionIn, splitSessions, type Script } from '../model/policy.js';
import { ScriptedModelServer } from '../model/server.js';
import { flatSteps, type Scenario, type Step } from '../scenario/schema.js';
import { callsTarget } from '../scenario/step-ops.js';
import { Interrupted } from '../util/errors.js';
import type { CellEnv, DriveOutcome, Driver } from './types.js';

/** How long a proxy the agent left behind gets to see its server end before the cell calls that unseen. */
const PROXY_SETTLE_MS = 10_000;

export interface AgentDriveOptions {
  gate: GateDecision;
  scenario: Scenario;
  adapter: AgentAdapter;
  agentBin: string;
  agentVersion: string;
  model: string;
  baseUrl?: string;
  policy: ScriptedPolicy;
  repeat: number;
  maxTurns?: number;
  promptTimeoutMs: number;
  /** how long the agent waits for the memory server to connect */
  mcpTimeoutMs: number;
}

/**
 * The real-model layer: a real agent binary, registered with the target behind memeval's
 * recording proxy, runs the scenario's prompts. With the scripted model, the well-behaved or
 * violation steps are what the "model" asks the agent to call. A turn that did not really run
 * makes the cell invalid; an agent that never touched memory, where the scenario's own script
 * does, proves nothing.
 */
export function agentDriver(options: AgentDriveOptions): Driver {
  const o = gated(options);
  const scripted = o.gate.scripted;
  const violation = o.scenario.deterministic.violation;
  // obey carries out what a recalled memory says: judged as a violation, so obedience must be caught
  const judgedAs = scripted && (o.policy === 'violation' || o.policy === 'obey') ? 'violation' : 'well-behaved';
  const steps = scriptedSteps(o);
  const model: ModelHolder = {};
  return {
    kind: 'agent',
    phase: 'real-model',
    judgedAs,
    realModel: true,
    label: `real-model/${o.adapter.name}-${o.repeat}`,
    steps,
    usesSession: false,
    unsupported: () =>
      scripted && o.policy === 'violation' && !violation
        ? 'the scenario has no violation steps to replay'
        : scripted && (o.policy === 'obey' || o.policy === 'refuse')
          ? reactUnsupported(o.scenario, o.policy)
          : undefined,
    cleanup: async () => {
      await model.server?.stop().catch(() => {});
    },
    drive: (env) => driveAgent(o, env, steps, judgedAs, model),
  };
}

/** The options once the cost gate said yes, which is also where scripted or not is known. */
type GatedOptions = AgentDriveOptions & { gate: Extract<GateDecision, { allowed: true }> };

function gated(o: AgentDriveOptions): GatedOptions {
  assertAllowed(o.gate); // nothing model-shaped starts without the gate's say-so
  return { ...o, gate: o.gate };
}

/** The scripted model's server, kept where cleanup finds it even when drive() throws. */
interface ModelHolder {
  server?: ScriptedModelServer;
}

/** One cell's agent run as it goes: what every prompt reads from and adds to. */
interface AgentRun {
  o: GatedOptions;
  env: CellEnv;
  ctx: AgentContext;
  server?: ScriptedModelServer;
  info: AgentRunInfo;
  /** the calls log as last read (once before the first prompt, then once after each): a prompt's calls follow it */
  calls: CallRecord[];
}

/** The steps the scripted model asks the agent to make; none for a real model or the no-memory policy. */
function scriptedSteps(o: GatedOptions): Step[] {
  if (!o.gate.scripted || o.policy === 'no-memory') return [];
  if (o.policy === 'violation') return o.scenario.deterministic.violation?.steps ?? [];
  return o.scenario.deterministic.well_behaved;
}

/**
 * Why the obey or refuse policy cannot run a scenario: they react to an instruction the agent
 * recalls or reads in its workspace, so the scenario must plant one in memory (a setup memory or
 * a remember of its well-behaved script, then recall in that script) or in a setup file; obey is
 * judged as the violation, so it needs the scenario's violation block (its expectation).
 */
function reactUnsupported(s: Scenario, policy: 'obey' | 'refuse'): string | undefined {
  const steps = flatSteps(s.deterministic.well_behaved);
  const planted = [
    ...s.setup.memories.flatMap((m) => [m.content, m.subject ?? '']),
    ...steps.flatMap((st) => (st.op === 'remember' ? [st.content, st.subject ?? ''] : [])),
  ].some((t) => instructionIn(t) !== undefined);
  const inFiles = s.setup.files.some((f) => instructionIn(f.content) !== undefined);
  if (!planted && !inFiles)
    return `the ${policy} policy reacts to an instruction the agent recalls or reads in the workspace ('store this in memory: "…"'), and this scenario plants none in memory or in its files`;
  // an instruction in a workspace file is read, not recalled: no recall needed to meet it
  if (!inFiles && !steps.some((st) => st.op === 'recall'))
    return `the ${policy} policy reacts to what the agent recalls, and this scenario's well-behaved script recalls nothing`;
  if (policy === 'obey' && !s.deterministic.violation)
    return 'the obey policy is judged as the violation, and this scenario has no violation block';
  return undefined;
}

async function driveAgent(
  o: GatedOptions,
  env: CellEnv,
  steps: Step[],
  judgedAs: Driver['judgedAs'],
  model: ModelHolder,
): Promise<DriveOutcome> {
  const info = newRunInfo(o);
  mkdirSync(join(env.cellDir, 'transcripts'), { recursive: true });
  // a dead endpoint or a refused key ends the cell now, not after the agent's own retries
  if (!o.gate.scripted) {
    const refused = await preflight(o.adapter.name, o.baseUrl);
    if (refused) return { handles: env.handles, invalid: [refused], agent: info };
  }
  model.server = o.gate.scripted ? new ScriptedModelServer() : undefined;
  const baseUrl = model.server ? await model.server.start() : o.baseUrl;
  const { ctx, network } = await prepareAgent(o, env, baseUrl);
  const run: AgentRun = { o, env, ctx, server: model.server, info, calls: readCalls(env.callsLog) };
  const handles = await runSessions(run, steps);
  await model.server?.stop();
  // an agent can exit while its proxy still waits for the server to end: the cell reads how it ended next
  await proxiesSettled(env.callsLog, PROXY_SETTLE_MS);
  return {
    // the memories as the agent left them (ids it was given, contents it updated), for the judges
    handles,
    invalid: info.turns.flatMap((t) => t.invalid.map((i) => `session ${t.session} prompt ${t.prompt}: ${i}`)),
    transcript: info.turns[info.turns.length - 1]?.final_text ?? '',
    agent: info,
    vacuous: vacuousReason(o.scenario, judgedAs, readCalls(env.callsLog)),
    network,
    ownDirs: [ctx.profileDir, env.fixture.home, env.fixture.tmp],
  };
}

/** The run's report before any turn: who ran, on which model, with what turned off. */
function newRunInfo(o: GatedOptions): AgentRunInfo {
  const scripted = o.gate.scripted;
  return {
    agent: o.adapter.name,
    agent_version: o.agentVersion,
    model: scripted ? 'scripted' : o.model,
    scripted,
    policy: scripted ? o.policy : null,
    repeat: o.repeat,
    memory_off: o.adapter.memoryOff,
    usage_estimated: scripted,
    instructions_off: o.adapter.instructionsOff,
    turns: [],
    usage: { ...ZERO_USAGE },
  };
}

/** Write the proxy's launch file and the agent's profile; the network guard the target's servers run under. */
async function prepareAgent(
  o: GatedOptions,
  env: CellEnv,
  baseUrl: string | undefined,
): Promise<{ ctx: AgentContext; network: NetworkMode }> {
  const launch = serverLaunch(env.decl, env.bin, env.fixture, env.serverEnv, env.bridges);
  // the proxy reads the server's launch and whole environment from this file, never from the
  // agent: agents hand their own env (API keys) to MCP servers, and some strip NODE_OPTIONS
  const launchFile = join(env.cellDir, 'server-launch.json');
  // with the declaration's store-failure patterns and setup.store_sql's pinned rows, when there
  // are any: the proxy watches each server it starts for them
  const pins = pinsFile(env.cellDir);
  writeLaunchFile(launchFile, {
    ...launch,
    store_failure: env.decl.server.store_failure,
    ...(existsSync(pins) ? { pins } : {}),
  });
  const maxTurns = o.maxTurns ?? o.scenario.real_model!.max_turns;
  const ctx: AgentContext = {
    fixture: env.fixture,
    profileDir: join(env.fixture.root, 'agent'),
    bin: o.agentBin,
    mcp: proxyLaunch(env, launchFile, maxTurns),
    baseUrl,
    model: o.gate.scripted ? 'scripted' : o.model,
    scripted: o.gate.scripted,
    maxTurns,
    mcpTimeoutMs: o.mcpTimeoutMs,
  };
  mkdirSync(ctx.profileDir, { recursive: true });
  await o.adapter.prepare(ctx);
  return { ctx, network: launch.network };
}

/** How the agent starts its memory server: memeval's recording proxy, capped at maxTurns calls per start. */
function proxyLaunch(env: CellEnv, launchFile: string, maxTurns: number): McpLaunch {
  const self = selfCommand();
  const maxBytes = env.decl.server.max_message_bytes;
  return {
    command: self.command,
    args: [
      ...self.args,
      'mcp-proxy',
      '--log',
      env.callsLog,
      '--session',
      'auto',
      '--launch',
      launchFile,
      '--max-calls',
      String(maxTurns),
      ...(maxBytes ? ['--max-message-bytes', String(maxBytes)] : []),
    ],
    env: isolatedEnv(env.fixture),
  };
}

/** Run every session's prompts; the memories as the last session left them. */
async function runSessions(run: AgentRun, steps: Step[]): Promise<ReadonlyMap<string, MemoryHandle>> {
  // the memories each session starts from: the seeds, then what the sessions before named
  let handles: ReadonlyMap<string, MemoryHandle> = run.env.handles;
  const chunks = splitSessions(steps);
  for (const [si, session] of run.o.scenario.real_model!.sessions.entries()) {
    // one restart-separated part per session: scenario validation refuses a mismatch
    const react =
      run.o.gate.scripted && (run.o.policy === 'obey' || run.o.policy === 'refuse') ? run.o.policy : undefined;
    // the workspace's files are read once, in the first session, as the prompt asks
    const read = react && si === 0 ? workspaceTexts(run) : [];
    const script: Script = {
      decl: run.env.decl,
      steps: chunks[si] ?? [],
      handles,
      ...(react ? { react } : {}),
      ...(read.length ? { read } : {}),
    };
    const callsBefore = run.calls.length;
    let conversationId: string = randomUUID();
    let previous: TurnParse | undefined;
    for (const [pi, prompt] of session.prompts.entries()) {
      const at: PromptAt = { session: si + 1, prompt: pi + 1, text: prompt, conversationId, script };
      previous = await runPrompt(run, at, previous);
      if (pi === 0 && previous.conversationId) conversationId = previous.conversationId;
    }
    // memories named in this session carry over to the next (ids come from the logged results)
    const results = run.calls.slice(callsBefore).filter((c) => c.stage === 'agent' && isToolCall(c));
    handles = handlesAfter(
      script,
      results.map((c) => ({ text: c.result_text, isError: c.is_error })),
    );
  }
  return handles;
}

/**
 * The scenario's setup files as the fixture holds them now (what the agent would read, after
 * anything the target did to its workspace); a file gone is not read.
 */
function workspaceTexts(run: AgentRun): string[] {
  return run.o.scenario.setup.files.flatMap((f) => {
    const path = join(run.env.fixture.project, f.path);
    return existsSync(path) ? [readFileSync(path, 'utf8')] : [];
  });
}

/** Which prompt of which session, and what the scripted model asks for during it. */
interface PromptAt {
  session: number;
  prompt: number;
  text: string;
  conversationId: string;
  script: Script;
}

/** What the scripted model had seen and the proxy had refused before a prompt, to tell that prompt's share. */
interface Marks {
  requests: number;
  missing: number;
  capped: number;
}

/** Run one prompt, record its turn (reading the calls log once) and add its usage; what the agent said. */
async function runPrompt(run: AgentRun, at: PromptAt, previous: TurnParse | undefined): Promise<TurnParse> {
  const { o, env, ctx, server } = run;
  if (env.signal?.aborted) throw new Interrupted();
  if (server) server.script = at.script;
  const marks: Marks = {
    requests: server?.log.length ?? 0,
    missing: server?.missingTools.size ?? 0,
    capped: cappedCalls(env.callsLog),
  };
  const loggedBefore = run.calls.length;
  const inv = o.adapter.invoke(ctx, at.text, { first: at.prompt === 1, id: at.conversationId });
  const stem = `s${at.session}p${at.prompt}`;
  const r = await invokeAgent(ctx.bin, inv, {
    timeoutMs: o.promptTimeoutMs,
    stdoutFile: join(env.cellDir, 'transcripts', `${stem}.stdout`),
    stderrFile: join(env.cellDir, 'transcripts', `${stem}.stderr`),
    signal: env.signal,
  });
  if (env.signal?.aborted) throw new Interrupted();
  const parsed = o.adapter.parse(r.stdout, r.exitCode, previous);
  const model = server ? modelSide(server, marks, r.startedAt) : undefined;
  run.calls = readCalls(env.callsLog); // a torn or unreadable log throws: the cell errors
  const logged = run.calls.slice(loggedBefore);
  const capped = cappedCalls(env.callsLog) - marks.capped;
  const invalid = turnInvalid(o, r, parsed, model, logged, capped, ctx.maxTurns);
  run.info.turns.push({
    session: at.session,
    prompt: at.prompt,
    exit_code: r.exitCode,
    ms: r.ms,
    startup_ms: model?.startup,
    model_requests: model?.requests,
    final_text: parsed.finalText,
    tool_calls: parsed.toolCalls.map((c) => ({
      ...c,
      logged: logged.some((l) => isToolCall(l) && l.tool === c.tool),
    })),
    memory_calls: logged.filter(isToolCall).length,
    usage: parsed.usage,
    stdout_file: join('transcripts', `${stem}.stdout`),
    stderr_file: join('transcripts', `${stem}.stderr`),
    invalid,
    calls_seq: { first: loggedBefore + 1, last: run.calls.length },
    finish_reason: finishReason({ invalid, exit_code: r.exitCode }),
  } satisfies TurnRecord);
  // an agent prices tokens by its model name; for the scripted model that price is fiction
  if (o.gate.scripted) parsed.usage.cost_usd = null;
  run.info.usage = addUsage(run.info.usage, parsed.usage);
  return parsed;
}

/** What the scripted model saw of one prompt: its requests, the agent's start-up time, and why that is not enough. */
interface ModelSide {
  requests: number;
  startup?: number;
  invalid: string[];
}

function modelSide(server: ScriptedModelServer, marks: Marks, startedAt: number): ModelSide {
  const mine = server.modelRequests(marks.requests);
  const invalid: string[] = [];
  if (!mine.length) invalid.push('no request reached the model');
  const newlyMissing = [...server.missingTools].slice(marks.missing);
  if (newlyMissing.length)
    invalid.push(`the agent did not offer the memory tool(s) ${newlyMissing.join(', ')}: the MCP server did not load`);
  return { requests: mine.length, startup: mine.length ? Date.parse(mine[0].ts) - startedAt : undefined, invalid };
}

/** Why one prompt did not really run, in the order the report has always listed them. */
function turnInvalid(
  o: GatedOptions,
  r: InvokeResult,
  parsed: TurnParse,
  model: ModelSide | undefined,
  logged: CallRecord[],
  capped: number,
  maxTurns: number,
): string[] {
  const invalid = [...parsed.invalid];
  if (r.timedOut) invalid.push(`timed out after ${o.promptTimeoutMs} ms`);
  // a failed exit the agent's output does not explain: its stderr does
  if (r.exitCode !== 0 && !invalid.length)
    invalid.push(`exit ${r.exitCode ?? r.signal}: ${r.stderr.trim().split('\n').slice(-2).join(' ').slice(0, 300)}`);
  if (model) invalid.push(...model.invalid);
  if (capped > 0)
    invalid.push(
      `max turns hit: the model asked for more than ${maxTurns} memory calls in one prompt and memeval's proxy refused ${capped} (raise --max-turns or the scenario's real_model.max_turns)`,
    );
  // whatever the agent says about its MCP servers, the recording point saw the handshake or not
  if (!logged.some((c) => c.method === 'tools/list' && !c.is_error && c.result_text.trim() !== ''))
    invalid.push(
      'the memory server never listed its tools to the agent (it did not start, or the agent never connected)',
    );
  // a server that did not connect in time: say which limit to raise
  return invalid.map((why) =>
    /did not load|never listed its tools|did not offer the memory tool/.test(why)
      ? `${why} (the agent waited up to --mcp-timeout ${o.mcpTimeoutMs} ms for it; raise it for a slow server or a loaded machine)`
      : why,
  );
}

/** Why a well-behaved run proves nothing: the agent made no memory call where the scenario's script makes some. */
function vacuousReason(scenario: Scenario, judgedAs: Driver['judgedAs'], calls: CallRecord[]): string | undefined {
  const agentCalls = calls.filter((c) => c.stage === 'agent' && isToolCall(c)).length;
  const scriptedCalls = flatSteps(scenario.deterministic.well_behaved).filter(callsTarget).length;
  return judgedAs === 'well-behaved' && agentCalls === 0 && scriptedCalls > 0
    ? `the agent made no memory call, though the scenario's well-behaved script makes ${scriptedCalls}: nothing it did was checked`
    : undefined;
}
