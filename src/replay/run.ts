import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { LoadedScenario } from '../scenario/loader.js';
import type { DeterministicPhase } from '../scenario/schema.js';
import type { LoadedTarget } from '../target/loader.js';
import type { ResolvedBin } from '../target/resolve-bin.js';
import { newRunId, REPORT_SCHEMA_VERSION, summarize, type Report } from '../report/report.js';
import { writeFileAtomic, writeJsonAtomic } from '../report/write.js';
import { buildMatrix } from '../report/matrix.js';
import { MEMEVAL_VERSION } from '../util/paths.js';
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

/** Run every scenario × target × phase in a pool, then write report.json atomically. */
export async function runDeterministic(o: RunOptions): Promise<{ report: Report; reportPath: string; runDir: string }> {
  const runId = o.runId ?? newRunId();
  const runDir = join(o.outDir, runId);
  const startedAt = new Date().toISOString();
  const cells = planCells(o.scenarios, o.targets);
  const results = await mapPool(cells, o.workers, async ({ s, t, phase }) => {
    const cellDir = join(runDir, 'cells', s.scenario.id, t.decl.name, phase);
    const r = await runPhase({ scenario: s.scenario, decl: t.decl, bin: t.bin, phase, cellDir, keep: o.keep, signal: o.signal, serverEnv: t.serverEnv });
    o.onResult?.(r);
    return r;
  });
  const interrupted = Boolean(o.signal?.aborted);
  // one calls log for the whole run beside the report, each line labelled with its cell
  const allCalls: string[] = [];
  for (const r of results) {
    const f = join(r.cell_dir, 'calls.jsonl');
    if (existsSync(f))
      for (const l of readFileSync(f, 'utf8').split('\n').filter(Boolean))
        allCalls.push(JSON.stringify({ scenario: r.scenario, target: r.target, phase: r.phase, ...JSON.parse(l) }));
    r.cell_dir = relative(runDir, r.cell_dir);
  }
  writeFileAtomic(join(runDir, 'calls.jsonl'), allCalls.map((l) => l + '\n').join(''));
  const report: Report = {
    schema_version: REPORT_SCHEMA_VERSION,
    run_id: runId,
    status: interrupted ? 'interrupted' : 'completed',
    memeval_version: MEMEVAL_VERSION,
    layer: 'deterministic',
    started_at: startedAt,
    ended_at: new Date().toISOString(),
    options: { workers: o.workers, keep: o.keep, ...o.options },
    scenarios: o.scenarios.map((s) => s.scenario.id),
    targets: o.targets.map((t) => ({ name: t.decl.name, package: t.decl.package?.npm ?? t.decl.server.command ?? '', version: t.bin.version, claims: t.decl.claims })),
    results,
    matrix: buildMatrix(results, o.targets.map((t) => t.decl.name)),
    summary: summarize(results, interrupted),
    warnings: [...new Set(results.flatMap((r) => r.warnings.map((w) => `${r.target}: ${w}`)))],
  };
  const reportPath = join(runDir, 'report.json');
  writeJsonAtomic(reportPath, report);
  return { report, reportPath, runDir };
}
