import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentRunInfo, ScriptedPolicy } from '../core/results.js';
import { assertAllowed, type GateDecision } from '../agent/cost-gate.js';
import { invokeAgent } from '../agent/invoke.js';
import { preflight } from '../agent/preflight.js';
import { selfCommand } from '../agent/self.js';
import { addUsage, ZERO_USAGE, type AgentContext, type AgentAdapter, type TurnParse } from '../agent/types.js';
import { isToolCall, readCalls } from '../mcp/calls-log.js';
import { cappedCalls, proxiesSettled, writeLaunchFile } from '../mcp/proxy.js';
import { serverLaunch } from '../mcp/session.js';
import { isolatedEnv } from '../fixture/fixture.js';
import type { MemoryHandle } from '../ops/ops.js';
import { handlesAfter, splitSessions, type Script } from '../model/policy.js';
import { ScriptedModelServer } from '../model/server.js';
import type { Scenario } from '../scenario/schema.js';
import { Interrupted } from '../util/errors.js';
import type { Driver } from './types.js';

export interface AgentDriveOptions {
  gate: GateDecision;
  scenario: Scenario;
  driver: AgentAdapter;
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

/** How long a proxy the agent left behind gets to see its server end before the cell calls that unseen. */
const PROXY_SETTLE_MS = 10_000;

/**
 * The real-model layer: a real agent binary, registered with the target behind memeval's
 * recording proxy, runs the scenario's prompts. With the scripted model, the well-behaved or
 * violation steps are what the "model" asks the agent to call. A turn that did not really run
 * makes the cell invalid; an agent that never touched memory, where the scenario's own script
 * does, proves nothing.
 */
export function agentDriver(o: AgentDriveOptions): Driver {
  assertAllowed(o.gate); // nothing model-shaped starts without the gate's say-so
  const { scenario } = o;
  const scripted = o.gate.scripted;
  const rm = scenario.real_model!;
  const violation = scenario.deterministic.violation;
  const judgedAs = scripted && o.policy === 'violation' ? 'violation' : 'well-behaved';
  const steps =
    !scripted || o.policy === 'no-memory'
      ? []
      : o.policy === 'violation'
        ? (violation?.steps ?? [])
        : scenario.deterministic.well_behaved;
  let server: ScriptedModelServer | undefined;
  return {
    kind: 'agent',
    phase: 'real-model',
    judgedAs,
    realModel: true,
    label: `real-model/${o.driver.name}-${o.repeat}`,
    steps,
    usesSession: false,
    unsupported: () =>
      scripted && o.policy === 'violation' && !violation ? 'the scenario has no violation steps to replay' : undefined,
    cleanup: async () => {
      await server?.stop().catch(() => {});
    },
    drive: async (env) => {
      const agent: AgentRunInfo = {
        agent: o.driver.name,
        agent_version: o.agentVersion,
        model: scripted ? 'scripted' : o.model,
        scripted,
        policy: scripted ? o.policy : null,
        repeat: o.repeat,
        memory_off: o.driver.memoryOff,
        usage_estimated: scripted,
        instructions_off: o.driver.instructionsOff,
        turns: [],
        usage: { ...ZERO_USAGE },
      };
      mkdirSync(join(env.cellDir, 'transcripts'), { recursive: true });
      // a dead endpoint or a refused key ends the cell now, not after the agent's own retries
      if (!scripted) {
        const refused = await preflight(o.driver.name, o.baseUrl);
        if (refused) return { handles: env.handles, invalid: [refused], agent };
      }
      server = scripted ? new ScriptedModelServer() : undefined;
      const baseUrl = server ? await server.start() : o.baseUrl;
      const launch = serverLaunch(env.decl, env.bin, env.fixture, env.serverEnv, env.bridges);
      // the proxy reads the server's launch and whole environment from this file, never from the
      // agent: agents hand their own env (API keys) to MCP servers, and some strip NODE_OPTIONS
      const launchFile = join(env.cellDir, 'server-launch.json');
      writeLaunchFile(launchFile, launch);
      const self = selfCommand();
      const maxTurns = o.maxTurns ?? rm.max_turns;
      const ctx: AgentContext = {
        fixture: env.fixture,
        profileDir: join(env.fixture.root, 'agent'),
        bin: o.agentBin,
        mcp: {
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
            ...(env.decl.server.max_message_bytes
              ? ['--max-message-bytes', String(env.decl.server.max_message_bytes)]
              : []),
          ],
          env: isolatedEnv(env.fixture),
        },
        baseUrl,
        model: scripted ? 'scripted' : o.model,
        scripted,
        maxTurns,
        mcpTimeoutMs: o.mcpTimeoutMs,
      };
      mkdirSync(ctx.profileDir, { recursive: true });
      await o.driver.prepare(ctx);

      // the memories each session starts from: the seeds, then what the sessions before named
      let handles: ReadonlyMap<string, MemoryHandle> = env.handles;
      const chunks = splitSessions(steps);
      for (const [si, session] of rm.sessions.entries()) {
        // one restart-separated part per session: scenario validation refuses a mismatch
        const chunk = chunks[si] ?? [];
        const script: Script = { decl: env.decl, steps: chunk, handles };
        const callsBefore = readCalls(env.callsLog).length;
        let conversationId: string = randomUUID();
        let previous: TurnParse | undefined;
        for (const [pi, prompt] of session.prompts.entries()) {
          if (env.signal?.aborted) throw new Interrupted();
          if (server) server.script = script;
          const requestsBefore = server?.log.length ?? 0;
          const missingBefore = server?.missingTools.size ?? 0;
          const loggedBefore = readCalls(env.callsLog).length;
          const cappedBefore = cappedCalls(env.callsLog);
          const inv = o.driver.invoke(ctx, prompt, { first: pi === 0, id: conversationId });
          const stem = `s${si + 1}p${pi + 1}`;
          const r = await invokeAgent(ctx.bin, inv, {
            timeoutMs: o.promptTimeoutMs,
            stdoutFile: join(env.cellDir, 'transcripts', `${stem}.stdout`),
            stderrFile: join(env.cellDir, 'transcripts', `${stem}.stderr`),
            signal: env.signal,
          });
          if (env.signal?.aborted) throw new Interrupted();
          const parsed = o.driver.parse(r.stdout, r.exitCode, previous);
          previous = parsed;
          if (pi === 0 && parsed.conversationId) conversationId = parsed.conversationId;
          const invalid = [...parsed.invalid];
          if (r.timedOut) invalid.push(`timed out after ${o.promptTimeoutMs} ms`);
          // a failed exit the agent's output does not explain: its stderr does
          if (r.exitCode !== 0 && !invalid.length)
            invalid.push(
              `exit ${r.exitCode ?? r.signal}: ${r.stderr.trim().split('\n').slice(-2).join(' ').slice(0, 300)}`,
            );
          let startup: number | undefined;
          let requests: number | undefined;
          if (server) {
            const mine = server.modelRequests(requestsBefore);
            requests = mine.length;
            if (!requests) invalid.push('no request reached the model');
            else startup = Date.parse(mine[0].ts) - r.startedAt;
            const newlyMissing = [...server.missingTools].slice(missingBefore);
            if (newlyMissing.length)
              invalid.push(
                `the agent did not offer the memory tool(s) ${newlyMissing.join(', ')}: the MCP server did not load`,
              );
          }
          const logged = readCalls(env.callsLog).slice(loggedBefore);
          const capped = cappedCalls(env.callsLog) - cappedBefore;
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
          for (const [i, why] of invalid.entries())
            if (/did not load|never listed its tools|did not offer the memory tool/.test(why))
              invalid[i] =
                `${why} (the agent waited up to --mcp-timeout ${o.mcpTimeoutMs} ms for it; raise it for a slow server or a loaded machine)`;
          agent.turns.push({
            session: si + 1,
            prompt: pi + 1,
            exit_code: r.exitCode,
            ms: r.ms,
            startup_ms: startup,
            model_requests: requests,
            final_text: parsed.finalText,
            tool_calls: parsed.toolCalls.map((c) => ({
              ...c,
              logged: logged.some((l) => isToolCall(l) && l.tool === c.tool),
            })),
            usage: parsed.usage,
            stdout_file: join('transcripts', `${stem}.stdout`),
            stderr_file: join('transcripts', `${stem}.stderr`),
            invalid,
          });
          // an agent prices tokens by its model name; for the scripted model that price is fiction
          if (scripted) parsed.usage.cost_usd = null;
          agent.usage = addUsage(agent.usage, parsed.usage);
        }
        // memories named in this session carry over to the next (ids come from the logged results)
        const results = readCalls(env.callsLog)
          .slice(callsBefore)
          .filter((c) => c.stage === 'agent' && isToolCall(c));
        handles = handlesAfter(
          script,
          results.map((c) => ({ text: c.result_text, isError: c.is_error })),
        );
      }
      await server?.stop();
      // an agent can exit while its proxy still waits for the server to end: the cell reads how it ended next
      await proxiesSettled(env.callsLog, PROXY_SETTLE_MS);

      const invalid = agent.turns.flatMap((t) => t.invalid.map((i) => `session ${t.session} prompt ${t.prompt}: ${i}`));
      const agentCalls = readCalls(env.callsLog).filter((c) => c.stage === 'agent' && isToolCall(c)).length;
      const scriptedCalls = scenario.deterministic.well_behaved.filter((s) => s.op !== 'restart').length;
      const vacuous =
        judgedAs === 'well-behaved' && agentCalls === 0 && scriptedCalls > 0
          ? `the agent made no memory call, though the scenario's well-behaved script makes ${scriptedCalls}: nothing it did was checked`
          : undefined;
      return {
        // the memories as the agent left them (ids it was given, contents it updated), for the judges
        handles,
        invalid,
        transcript: agent.turns[agent.turns.length - 1]?.final_text ?? '',
        agent,
        vacuous,
        network: launch.network,
        ownDirs: [ctx.profileDir, env.fixture.home, env.fixture.tmp],
      };
    },
  };
}
