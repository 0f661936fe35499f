import type Database from 'better-sqlite3';
import { AGENT_USAGE_COLUMNS } from './schema.js';

/** What agent_usage reads of an agent run (core's AgentRunInfo has these fields; evidence/ does not import core). */
export interface AgentUsageInput {
  agent: string;
  model: string;
  usage_estimated?: boolean;
  turns: {
    session: number;
    prompt: number;
    exit_code: number | null;
    ms: number;
    model_requests?: number;
    tool_calls: unknown[];
    memory_calls?: number;
    finish_reason?: string;
    usage: { input: number; output: number; cache_read: number; cache_write: number; cost_usd: number | null };
  }[];
}

/**
 * `agent_usage`: one row per prompt of an agent cell, with what the agent spent on it. A figure
 * the agent did not report is NULL, never 0: tokens when it reported none at all, cost when it
 * prices nothing, turns when memeval's model server did not see the requests.
 */
export function writeAgentUsage(db: Database.Database, agent: AgentUsageInput): void {
  db.exec(`CREATE TABLE agent_usage (session INTEGER, prompt INTEGER, input_tokens INTEGER, output_tokens INTEGER,
    cache_read_tokens INTEGER, cache_write_tokens INTEGER, cost_usd REAL, turns INTEGER, tool_calls INTEGER,
    memory_calls INTEGER, finish_reason TEXT, exit_code INTEGER, ms REAL, usage_estimated INTEGER, agent TEXT, model TEXT)`);
  const ins = db.prepare(
    `INSERT INTO agent_usage (${AGENT_USAGE_COLUMNS.join(', ')}) VALUES (${AGENT_USAGE_COLUMNS.map(() => '?').join(',')})`,
  );
  db.transaction(() => {
    for (const t of agent.turns) {
      const u = t.usage;
      const reported = u.input + u.output + u.cache_read + u.cache_write > 0;
      const n = (v: number) => (reported ? v : null);
      ins.run(
        t.session,
        t.prompt,
        n(u.input),
        n(u.output),
        n(u.cache_read),
        n(u.cache_write),
        u.cost_usd,
        t.model_requests ?? null,
        t.tool_calls.length,
        typeof t.memory_calls === 'number' ? t.memory_calls : null,
        t.finish_reason ?? 'unknown',
        t.exit_code,
        t.ms,
        agent.usage_estimated ? 1 : 0,
        agent.agent,
        agent.model,
      );
    }
  })();
}
