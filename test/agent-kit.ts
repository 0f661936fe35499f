/**
 * The agents tier's part of the test kit: one way to run memeval's agent turn with a real agent
 * binary (installed first) and get back the report read through the schema, and the model
 * stand-in a run on a "real" model id talks to. The run goes through the kit's CLI mode: an agent
 * cell is processes (the agent, its MCP servers), and a run's TMPDIR and keys are its own.
 */
import assert from 'node:assert/strict';
import { getAgent, installAgent } from '../src/agent/registry.ts';
import type { AgentName } from '../src/agent/types.ts';
import type { CellResult } from '../src/core/results.ts';
import { ScriptedModelServer } from '../src/model/server.ts';
import { runInline, timeLimit, type CliOptions, type CliRun, type InlineConfig } from './kit.ts';

type T = { after: (fn: () => void) => void; diagnostic: (s: string) => void };

export interface AgentRunOptions extends Omit<CliOptions, 'mode'> {
  /** the model id (default `scripted`: memeval's scripted model, no endpoint) */
  model?: string;
  /** a model endpoint (the stand-in's url): the run then says it understands the model cost */
  baseUrl?: string;
}

/** An agent run, and how long the memeval run took (the install before it not counted). */
export type AgentRun = CliRun & { ms: number };

/**
 * Install `agent` and run the agent turn with it: `memeval run --agent-turn --agent <agent>
 * --model <model>` plus the settings given, through the kit's CLI mode (a time limit of 8
 * minutes unless `spawn` says otherwise).
 */
export async function agentRun(t: T, agent: AgentName | string, o: AgentRunOptions = {}): Promise<AgentRun> {
  await installAgent(getAgent(agent), (s) => t.diagnostic(s));
  const t0 = performance.now();
  const { model = 'scripted', baseUrl, config = {}, spawn, ...rest } = o;
  const settings: InlineConfig = {
    ...config,
    ...(baseUrl ? { iUnderstandModelCost: true } : {}),
    agent: { turn: true, name: agent, model, ...(baseUrl ? { baseUrl } : {}), ...config.agent },
  };
  const r = await runInline(t, {
    ...rest,
    mode: 'cli',
    config: settings,
    spawn: { timeout: timeLimit(480_000), ...spawn },
  });
  // onto the run, not spread from it: its report is read when first asked for
  return Object.assign(r, { ms: performance.now() - t0 });
}

/** memeval's model stand-in on a loopback port, stopped after the test; its url for --base-url. */
export async function modelEndpoint(t: T): Promise<{ model: ScriptedModelServer; url: string }> {
  const model = new ScriptedModelServer();
  const url = await model.start();
  t.after(() => void model.stop());
  return { model, url };
}

/** A fake key in each variable the agent reads its key from (the stand-in takes any). */
export function fakeKeys(agent: AgentName | string, value = 'sk-test-not-a-real-key'): Record<string, string> {
  return Object.fromEntries(getAgent(agent).keyEnv.map((k) => [k, value]));
}

/** The agent record of a cell that ran an agent: none is a test failure naming the cell. */
export function agentOf(cell: CellResult): NonNullable<CellResult['agent']> {
  return cell.agent ?? assert.fail(`${cell.cell_id}: no agent record (${cell.verdict}: ${cell.reason})`);
}
