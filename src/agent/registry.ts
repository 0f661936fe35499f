import { installMany } from '../targets/install-many.js';
import { packageInstallDir } from '../targets/cache.js';
import { installPackage, type InstallResult } from '../targets/install.js';
import { resolveBin, type ResolvedBin } from '../targets/resolve-bin.js';
import { InputError, nearest } from '../util/errors.js';
import { claudeCode } from './drivers/claude-code.js';
import { codex } from './drivers/codex.js';
import { gemini } from './drivers/gemini.js';
import { opencode } from './drivers/opencode.js';
import { qwen } from './drivers/qwen.js';
import type { AgentDriver } from './types.js';

export const DRIVERS: AgentDriver[] = [claudeCode, codex, gemini, opencode, qwen];

export function getDriver(name: string): AgentDriver {
  const d = DRIVERS.find((x) => x.name === name);
  if (!d) {
    const guess = nearest(name, DRIVERS.map((x) => x.name));
    throw new InputError(`--agent: unknown agent "${name}"${guess ? ` (did you mean "${guess}"?)` : ''}; known: ${DRIVERS.map((x) => x.name).join(', ')}`);
  }
  return d;
}

export function agentPrefix(d: AgentDriver): string {
  return packageInstallDir('agents', d.name, d.version);
}

export function resolveAgentBin(d: AgentDriver): ResolvedBin | undefined {
  return resolveBin(agentPrefix(d), d.npm, d.bin);
}

export function installAgent(d: AgentDriver, log: (s: string) => void): Promise<InstallResult> {
  // agents ship their native binaries as optional dependencies: never omit them
  return installPackage({ label: d.name, npm: d.npm, version: d.version, bin: d.bin, extra: [], overrides: {}, omitOptional: false, dir: agentPrefix(d) }, log);
}

export function installAgents(drivers: AgentDriver[], log: (s: string) => void): Promise<void> {
  return installMany(drivers, (d) => d.name, (d) => installAgent(d, log), log);
}
