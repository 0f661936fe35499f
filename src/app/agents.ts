import { AGENTS, getAgent, installAgents, resolveAgentBin } from '../agent/registry.js';

export interface AgentStatus {
  name: string;
  /** "<npm package>@<pinned version>" */
  package: string;
  installed: boolean;
}

/** Every agent CLI the real-model layer drives: its pinned package and whether it is installed in the cache. */
export function agentStatus(): AgentStatus[] {
  return AGENTS.map((d) => ({
    name: d.name,
    package: `${d.npm}@${d.version}`,
    installed: Boolean(resolveAgentBin(d)),
  }));
}

/** Install these agent CLIs (names, or "all") into the cache; idempotent. */
export async function installAgentsNamed(names: string[], log: (line: string) => void): Promise<void> {
  await installAgents(names.includes('all') ? AGENTS : names.map(getAgent), log);
}
