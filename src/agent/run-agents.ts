import { join, relative } from 'node:path';
import type { LoadedScenario } from '../scenario/loader.js';
import type { RunTarget } from '../replay/run.js';
import type { PhaseResult } from '../replay/phase.js';
import { newRunId, REPORT_SCHEMA_VERSION, summarize, type Report } from '../report/report.js';
import { buildMatrix } from '../report/matrix.js';
import { writeJsonAtomic } from '../report/write.js';
import { MEMEVAL_VERSION } from '../util/paths.js';
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
  for (const r of results) r.cell_dir = relative(runDir, r.cell_dir);
  const interrupted = Boolean(o.signal?.aborted);
  const report = {
    schema_version: REPORT_SCHEMA_VERSION,
    run_id: runId,
    status: interrupted ? ('interrupted' as const) : ('completed' as const),
    memeval_version: MEMEVAL_VERSION,
    layer: 'real-model' as const,
    started_at: startedAt,
    ended_at: new Date().toISOString(),
    options: { workers: o.workers, keep: o.keep, agent: o.driver.name, agent_version: o.agentVersion, model: o.gate.layer === 'real-model' && o.gate.allowed && o.gate.scripted ? 'scripted' : o.model, scripted_model: o.gate.layer === 'real-model' && o.gate.allowed && o.gate.scripted, policy: o.policy, repeat: o.repeat, ...o.options },
    scenarios: [...new Set(cells.map((c) => c.s.scenario.id))],
    targets: o.targets.map((t) => ({ name: t.decl.name, package: t.decl.package?.npm ?? t.decl.server.command ?? '', version: t.bin.version, claims: t.decl.claims })),
    results,
    matrix: buildMatrix(results, o.targets.map((t) => t.decl.name)),
    repeats: repeatStats(results),
    summary: summarize(results, interrupted),
    warnings: [...new Set(results.flatMap((r) => r.warnings.map((w) => `${r.target}: ${w}`)))],
  };
  const reportPath = join(runDir, 'report.json');
  writeJsonAtomic(reportPath, report);
  return { report, reportPath };
}
