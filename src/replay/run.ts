import { join } from 'node:path';
import type { LoadedScenario } from '../scenario/loader.js';
import type { DeterministicPhase } from '../scenario/schema.js';
import type { LoadedTarget } from '../targets/loader.js';
import type { ResolvedBin } from '../targets/resolve-bin.js';
import { newRunId, type Report } from '../report/report.js';
import { writeRunReport } from '../report/run-report.js';
import { cellId } from '../core/cell-id.js';
import { mapPool } from '../util/pool.js';
import { runPhase, type PhaseResult } from './phase.js';

export interface RunTarget extends LoadedTarget {
  bin: ResolvedBin;
  /** extra environment for every server process of this target */
  serverEnv?: Record<string, string>;
}

export interface RunOptions {
  scenarios: LoadedScenario[];
  targets: RunTarget[];
  workers: number;
  keep: boolean;
  outDir: string;
  runId?: string;
  signal?: AbortSignal;
  onResult?: (r: PhaseResult) => void;
  options?: Record<string, unknown>;
  /** run only these cell ids (a shard); the rest of the plan is left to other machines */
  onlyCells?: Set<string>;
  /** extra top-level report fields (a shard's index and count) */
  extra?: Record<string, unknown>;
}

interface Cell {
  s: LoadedScenario;
  t: RunTarget;
  phase: DeterministicPhase;
}

export function planCells(scenarios: LoadedScenario[], targets: RunTarget[]): Cell[] {
  const cells: Cell[] = [];
  for (const s of scenarios)
    for (const t of targets) {
      cells.push({ s, t, phase: 'well-behaved' });
      if (s.scenario.deterministic.violation) cells.push({ s, t, phase: 'violation' });
    }
  return cells;
}

/** Run every scenario × target × phase in a pool, then write the run's report. */
export async function runDeterministic(o: RunOptions): Promise<{ report: Report; reportPath: string; runDir: string }> {
  const runId = o.runId ?? newRunId();
  const runDir = join(o.outDir, runId);
  const startedAt = new Date().toISOString();
  const cells = planCells(o.scenarios, o.targets).filter((c) => !o.onlyCells || o.onlyCells.has(cellId({ scenario: c.s.scenario.id, target: c.t.decl.name, phase: c.phase })));
  const results = await mapPool(cells, o.workers, async ({ s, t, phase }) => {
    const cellDir = join(runDir, 'cells', s.scenario.id, t.decl.name, phase);
    const r = await runPhase({ scenario: s.scenario, decl: t.decl, bin: t.bin, phase, cellDir, keep: o.keep, signal: o.signal, serverEnv: t.serverEnv });
    o.onResult?.(r);
    return r;
  });
  const { report, reportPath } = writeRunReport(
    {
      runId,
      runDir,
      layer: 'deterministic',
      startedAt,
      options: { workers: o.workers, keep: o.keep, ...o.options },
      scenarios: o.scenarios.map((s) => s.scenario.id),
      targets: o.targets,
      results,
      interrupted: Boolean(o.signal?.aborted),
    },
    o.extra ?? {},
  );
  return { report, reportPath, runDir };
}
