import { installMany } from '../targets/install-many.js';
import { packageInstallDir } from '../targets/cache.js';
import { installPackage, type InstallResult } from '../targets/install.js';
import { resolveBin, type ResolvedBin } from '../targets/resolve-bin.js';
import { InputError, nearest } from '../util/errors.js';
import { claudeCode } from './adapters/claude-code.js';
import { codex } from './adapters/codex.js';
import { gemini } from './adapters/gemini.js';
import { opencode } from './adapters/opencode.js';
import { qwen } from './adapters/qwen.js';
import type { AgentAdapter } from './types.js';

export const AGENTS: AgentAdapter[] = [claudeCode, codex, gemini, opencode, qwen];

export function getAgent(name: string): AgentAdapter {
  const d = AGENTS.find((x) => x.name === name);
  if (!d) {
    const guess = nearest(
      name,
      AGENTS.map((x) => x.name),
    );
    throw new InputError(
      `--agent: unknown agent "${name}"${guess ? ` (did you mean "${guess}"?)` : ''}; known: ${AGENTS.map((x) => x.name).join(', ')}`,
    );
  }
  return d;
}

export function agentPrefix(d: AgentAdapter): string {
  return packageInstallDir('agents', d.name, d.version);
}

export function resolveAgentBin(d: AgentAdapter): ResolvedBin | undefined {
  return resolveBin(agentPrefix(d), d.npm, d.bin);
}

export function installAgent(d: AgentAdapter, log: (s: string) => void): Promise<InstallResult> {
  // agents ship their native binaries as optional dependencies: never omit them
  return installPackage(
    {
      label: d.name,
      npm: d.npm,
      version: d.version,
      bin: d.bin,
      extra: [],
      overrides: {},
      omitOptional: false,
      dir: agentPrefix(d),
    },
    log,
  );
}

export function installAgents(adapters: AgentAdapter[], log: (s: string) => void): Promise<void> {
  return installMany(
    adapters,
    (d) => d.name,
    (d) => installAgent(d, log),
    log,
  );
}
