import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { DeterministicPhase, RunPlan } from '../core/results.js';
import type { LoadedScenario } from '../scenario/loader.js';
import type { LoadedTarget } from '../targets/loader.js';
import type { ResolvedBin } from '../targets/resolve-bin.js';

/** A target ready to run: its declaration and the installed server it starts. */
export interface RunTarget extends LoadedTarget {
  bin: ResolvedBin;
  /** extra environment for every server process of this target */
  serverEnv?: Record<string, string>;
}

export interface PlannedCell {
  s: LoadedScenario;
  t: RunTarget;
  phase: DeterministicPhase;
}

/** The deterministic layer's cells: each scenario × target × its phases, in a stable order. */
export function planCells(scenarios: LoadedScenario[], targets: RunTarget[]): PlannedCell[] {
  const cells: PlannedCell[] = [];
  for (const s of scenarios)
    for (const t of targets) {
      cells.push({ s, t, phase: 'well-behaved' });
      if (s.scenario.deterministic.violation) cells.push({ s, t, phase: 'violation' });
    }
  return cells;
}

export function targetInfo(t: RunTarget) {
  return { name: t.decl.name, package: t.decl.package?.npm ?? t.decl.server.command ?? '', version: t.bin.version, claims: t.decl.claims as string[] };
}

const fileHash = (file: string) => ({ file: resolve(file), sha256: createHash('sha256').update(readFileSync(file)).digest('hex') });

/**
 * The plan a report records: every planned cell id (all shards'), the shard, and a hash of
 * each scenario and target declaration file, so parts that read other files under the same
 * names are never merged as one run.
 */
export function runPlan(cellIds: string[], scenarios: LoadedScenario[], targets: LoadedTarget[], shard: { index: number; count: number } | null): RunPlan {
  return {
    cells: [...new Set(cellIds)].sort(),
    shard,
    scenarios: Object.fromEntries(scenarios.map((s) => [s.scenario.id, fileHash(s.file)])),
    targets: Object.fromEntries(targets.map((t) => [t.decl.name, fileHash(t.file)])),
  };
}
