import { join, resolve } from 'node:path';
import type { DriverKind, Phase, RunPlan } from '../core/results.js';
import type { LoadedScenario } from '../scenario/loader.js';
import type { LoadedTarget } from '../targets/loader.js';
import type { VersionedTarget } from '../targets/version.js';
import type { ResolvedBin } from '../targets/resolve-bin.js';
import { sha256File } from '../util/file-hash.js';

/** A target ready to run: its declaration (at the version --target asked for) and the installed server it starts. */
export interface RunTarget extends VersionedTarget {
  bin: ResolvedBin;
  /** extra environment for every server process of this target */
  serverEnv?: Record<string, string>;
}

/** Which layer a run plans: the replay phases, or an agent's cells, each repeated (absent: once). */
export type PlanLayer =
  { layer: 'deterministic'; repeat?: number } | { layer: 'real-model'; agents: string[]; repeat: number };

/**
 * One cell of a run as planned: the only place a cell's id and dir are made. The report's plan,
 * a shard's cut, the partial report and the cell's result all name the cell by this `id`.
 */
export interface CellSpec {
  /** scenario/target/phase (phase-repeat with --repeat above 1), or scenario/target/real-model/agent-repeat */
  id: string;
  /** where the cell writes its calls log and evidence: <runDir>/cells/<scenario>/<target>/<last part of the id> */
  dir: string;
  scenario: LoadedScenario;
  target: RunTarget;
  phase: Phase;
  driver: Extract<DriverKind, 'replay' | 'agent'>;
  /** real-model cells, and deterministic ones repeated: 1..repeat */
  repeat?: number;
  /** real-model cells: the agent that runs the cell */
  agent?: string;
}

/**
 * Every cell of a run in a stable order: each scenario × target × its phases × repeat
 * (deterministic), or each scenario with a real_model block × target × agent × repeat (real-model).
 */
export function planRun(
  plan: PlanLayer,
  scenarios: LoadedScenario[],
  targets: RunTarget[],
  runDir: string,
): CellSpec[] {
  const cell = (
    s: LoadedScenario,
    t: RunTarget,
    phase: Phase,
    last: string,
    repeat?: number,
    agent?: string,
  ): CellSpec => ({
    id: `${s.scenario.id}/${t.decl.name}/${phase === 'real-model' ? `real-model/${last}` : last}`,
    dir: join(runDir, 'cells', s.scenario.id, t.decl.name, last),
    scenario: s,
    target: t,
    phase,
    driver: phase === 'real-model' ? 'agent' : 'replay',
    ...(repeat === undefined ? {} : { repeat }),
    ...(agent === undefined ? {} : { agent }),
  });
  const cells: CellSpec[] = [];
  for (const s of scenarios)
    for (const t of targets) {
      if (plan.layer === 'real-model') {
        if (s.scenario.real_model)
          for (const agent of plan.agents)
            for (let i = 1; i <= plan.repeat; i++) cells.push(cell(s, t, 'real-model', `${agent}-${i}`, i, agent));
        continue;
      }
      const phases: Phase[] = s.scenario.deterministic.violation ? ['well-behaved', 'violation'] : ['well-behaved'];
      // one run keeps the plain phase ids that baselines and expected failures name
      const repeat = plan.repeat ?? 1;
      for (const phase of phases)
        if (repeat === 1) cells.push(cell(s, t, phase, phase));
        else for (let i = 1; i <= repeat; i++) cells.push(cell(s, t, phase, `${phase}-${i}`, i));
    }
  return cells;
}

export function targetInfo(t: RunTarget) {
  return {
    name: t.decl.name,
    package: t.decl.package?.npm ?? t.decl.server.command ?? '',
    version: t.bin.version,
    ...(t.override ? { pinned: t.override.pinned, requested: t.override.requested } : {}),
    claims: t.decl.claims as string[],
  };
}

const fileHash = (file: string) => ({
  file: resolve(file),
  sha256: sha256File(file),
});

/**
 * The plan a report records: every planned cell id (all shards'), the shard, and a hash of
 * each scenario and target declaration file, so parts that read other files under the same
 * names are never merged as one run.
 */
export function runPlan(
  cellIds: string[],
  scenarios: LoadedScenario[],
  targets: LoadedTarget[],
  shard: { index: number; count: number } | null,
): RunPlan {
  return {
    cells: [...new Set(cellIds)].sort(),
    shard,
    scenarios: Object.fromEntries(scenarios.map((s) => [s.scenario.id, fileHash(s.file)])),
    targets: Object.fromEntries(targets.map((t) => [t.decl.name, fileHash(t.file)])),
  };
}
