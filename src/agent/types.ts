import type { TokenUsage } from '../core/results.js';
import type { Fixture } from '../fixture/fixture.js';

export const AGENT_NAMES = ['claude-code', 'codex', 'gemini', 'opencode', 'qwen'] as const;
export type AgentName = (typeof AGENT_NAMES)[number];

export type { TokenUsage };

/** cost_usd is null until an agent itself reports a cost: no figure reads as free */
export const ZERO_USAGE: TokenUsage = { input: 0, output: 0, cache_read: 0, cache_write: 0, cost_usd: null };

function addCost(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.round((a + b) * 1e6) / 1e6;
}

export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cache_read: a.cache_read + b.cache_read,
    cache_write: a.cache_write + b.cache_write,
    cost_usd: addCost(a.cost_usd, b.cost_usd),
  };
}

/** This turn's usage, from running totals an agent reports per conversation (and the last turn's). */
export function usageSince(cumulative: TokenUsage, previous?: TurnParse): TokenUsage {
  const prev = previous?.cumulative ?? ZERO_USAGE;
  return {
    input: cumulative.input - prev.input,
    output: cumulative.output - prev.output,
    cache_read: cumulative.cache_read - prev.cache_read,
    cache_write: cumulative.cache_write - prev.cache_write,
    cost_usd: null,
  };
}

/** How the agent must start the memory server: memeval's recording proxy in front of the target. */
export interface McpLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

export interface AgentContext {
  fixture: Fixture;
  /** the agent's own config dirs live here, inside the fixture */
  profileDir: string;
  bin: string;
  mcp: McpLaunch;
  /** base URL of the model endpoint (the scripted server, or --base-url); undefined = the agent's default */
  baseUrl?: string;
  model: string;
  scripted: boolean;
  maxTurns: number;
  /** how long to wait for the memory server to start and list its tools */
  mcpTimeoutMs: number;
}

/** Long enough for the slowest built-in target to start on a loaded 2-core machine. */
export { DEFAULT_MCP_TIMEOUT_MS } from '../core/config.js';

/** What one prompt's raw output says, in the agent's own format. */
export interface TurnParse {
  finalText: string;
  /** id to resume this conversation with */
  conversationId?: string;
  usage: TokenUsage;
  /** running totals, for agents (Codex) that report usage cumulatively per conversation */
  cumulative?: TokenUsage;
  /** memory tool calls the agent reports making (names without the mcp prefix) */
  toolCalls: { tool: string; ok: boolean }[];
  /** reasons this turn did not really run; empty when it did */
  invalid: string[];
}

export function emptyTurn(): TurnParse {
  return { finalText: '', usage: { ...ZERO_USAGE }, toolCalls: [], invalid: [] };
}

export interface Invocation {
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** written to the agent's stdin, which is then closed; absent = no stdin at all */
  stdin?: string;
}

/** One module per agent: profile install, invocation, and output parsing. */
export interface AgentAdapter {
  name: AgentName;
  npm: string;
  version: string;
  bin: string;
  /** environment variables holding API keys that a real-model run passes through */
  keyEnv: string[];
  /** how the agent's own competing memory (its memory tool, memory files, file-writing tools) is switched off, for the report */
  memoryOff: Record<string, string>;
  /** how instruction files memeval did not put there (CLAUDE.md, AGENTS.md… in parent folders) are kept out, for the report */
  instructionsOff: Record<string, string>;
  prepare(ctx: AgentContext): Promise<void>;
  invoke(ctx: AgentContext, prompt: string, conversation: { first: boolean; id: string }): Invocation;
  parse(stdout: string, exitCode: number | null, previous?: TurnParse): TurnParse;
}
