/**
 * A cell's id, stable across runs: what diff, merge, shard and baselines match cells by.
 * Agent cells add the agent and the repeat so that repeats of one scenario stay distinct.
 */
export function cellId(c: { scenario: string; target: string; phase: string; agent?: { agent: string; repeat: number } }): string {
  return [c.scenario, c.target, c.phase, ...(c.agent ? [`${c.agent.agent}-${c.agent.repeat}`] : [])].join('/');
}
