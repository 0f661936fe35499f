import type { DeterministicPhase } from '../core/results.js';
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
