import { join } from 'node:path';
import type { LoadedScenario } from '../scenario/loader.js';
import type { RunTarget } from '../replay/run.js';
import type { PhaseResult } from '../replay/phase.js';
import { newRunId, type Report } from '../report/report.js';
import { writeRunReport } from '../report/run-report.js';
import { mapPool } from '../util/pool.js';
import { assertAllowed } from './cost-gate.js';
import { runAgentCell, type AgentCellOptions } from './real-model.js';
import { repeatStats, type RepeatStats } from './repeats.js';

export interface AgentRunOptions extends Omit<AgentCellOptions, 's' | 't' | 'repeat' | 'cellDir'> {
  scenarios: LoadedScenario[];
  targets: RunTarget[];
  repeat: number;
  workers: number;
  outDir: string;
  onResult?: (r: PhaseResult) => void;
  options?: Record<string, unknown>;
}

/** The real-model layer: every scenario with a real_model block × target × repeat, in a pool. */
export async function runAgents(o: AgentRunOptions): Promise<{ report: Report & { repeats: RepeatStats[] }; reportPath: string }> {
  assertAllowed(o.gate);
  const runId = newRunId();
  const runDir = join(o.outDir, runId);
  const startedAt = new Date().toISOString();
  const cells = o.scenarios
    .filter((s) => s.scenario.real_model)
    .flatMap((s) => o.targets.flatMap((t) => Array.from({ length: o.repeat }, (_, i) => ({ s, t, repeat: i + 1 }))));
  const results = await mapPool(cells, o.workers, async ({ s, t, repeat }) => {
    const cellDir = join(runDir, 'cells', s.scenario.id, t.decl.name, `${o.driver.name}-${repeat}`);
    const r = await runAgentCell({ ...o, s, t, repeat, cellDir });
    o.onResult?.(r);
    return r;
  });
  const scripted = o.gate.scripted;
  return writeRunReport(
    {
      runId,
      runDir,
      layer: 'real-model',
      startedAt,
      options: { workers: o.workers, keep: o.keep, agent: o.driver.name, agent_version: o.agentVersion, model: scripted ? 'scripted' : o.model, scripted_model: scripted, policy: o.policy, repeat: o.repeat, ...o.options },
      scenarios: [...new Set(cells.map((c) => c.s.scenario.id))],
      targets: o.targets,
      results,
      interrupted: Boolean(o.signal?.aborted),
    },
    { repeats: repeatStats(results) },
  );
}
