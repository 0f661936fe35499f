import type { CellResult, Verdict } from '../core/results.js';
import type { LoadedScenario } from '../scenario/loader.js';
import { agentLayerUnsupported } from '../scenario/kill-checks.js';
import { hostileTargetNames } from '../targets/files.js';
import {
  proofStatus,
  readHostileCell,
  readReferenceCell,
  type FalsePass,
  type MutationMiss,
  type ProofCell,
  type SelftestScenario,
} from './proof.js';
import { judgedAsOf, mayBeFalse, type JudgedAs, type SelftestLayer } from './rules.js';

/**
 * One layer's share of the cross product: every scenario × hostile target × phase the scenario
 * has. A cell runs when some rule could make its verdict false; the rest cannot be false.
 */
export interface SelftestCoverage {
  layer: SelftestLayer;
  cross_product: number;
  /** the cells some rule could make false: the ones the layer runs */
  planned: number;
  /** the cells that ended with a verdict (fewer than planned only when interrupted) */
  ran: number;
  cannot_be_false: number;
}

export interface SelftestReport {
  scenarios: SelftestScenario[];
  targets: string[];
  layers: SelftestLayer[];
  cells: number;
  coverage: SelftestCoverage[];
  /** cells by verdict, over every layer */
  by_verdict: Partial<Record<Verdict, number>>;
  false_passes: FalsePass[];
  /** scenarios with a false verdict (a hostile target's, or a broken input's decision) */
  toothless: string[];
  /** scenarios a correct server does not pass */
  fails_correct_server: string[];
  /** scenarios some cell that could expose them tested nothing */
  not_proven: string[];
  proven: string[];
  /** the parts of the proof this selftest left out (then no scenario is proven) */
  narrowed?: string[];
  /** the reference target's cells (absent when it was not run) */
  reference?: { cells: number; by_verdict: Partial<Record<Verdict, number>> };
  /** broken inputs applied to the scenarios' assertions (absent when not applied) */
  mutations?: { applied: number; false: number };
  run_dirs: string[];
  duration_ms: number;
}

/** A cell as selftest plans it: which scenario, on which hostile target, in which layer and phase. */
export type PlannedCell = Pick<ProofCell, 'scenario' | 'target' | 'layer' | 'phase'>;

type Found = Pick<SelftestScenario, 'false_passes' | 'mutation_misses' | 'reference_misses' | 'unproven'>;

/** The parts of the proof a selftest left out: proven is a claim over all of them, so then no scenario is. */
export function narrowedParts(o: { hostileTargets: number; reference: boolean; mutations: boolean }): string[] {
  const allHostile = hostileTargetNames().length;
  return [
    ...(o.hostileTargets < allHostile ? [`only ${o.hostileTargets} of ${allHostile} hostile targets (--target)`] : []),
    ...(o.reference ? [] : ['without the reference target (--no-reference)']),
    ...(o.mutations ? [] : ["without memeval's broken inputs (--no-mutations)"]),
  ];
}

/**
 * What a selftest found about each scenario, cell by cell, and what it concludes: the hostile
 * cells it planned and read, the reference target's cells, the broken inputs that decided.
 * A planned hostile cell that never reports is unproven (interrupted); a part of the proof left
 * out leaves every scenario not proven.
 */
export class SelftestFindings {
  private readonly found = new Map<string, Found>();
  private readonly byId: Map<string, LoadedScenario>;
  private readonly byVerdict: Partial<Record<Verdict, number>> = {};
  // hostile cells some rule applies to: each must end exposed (or false); one that never ran proves nothing
  private readonly awaited = new Map<string, PlannedCell>();
  private readonly coverage: SelftestCoverage[];
  private cells = 0;
  private reference?: SelftestReport['reference'];
  private mutations?: SelftestReport['mutations'];

  constructor(
    private readonly scenarios: LoadedScenario[],
    private readonly targets: string[],
    private readonly layers: SelftestLayer[],
  ) {
    this.byId = new Map(scenarios.map((s) => [s.scenario.id, s]));
    for (const s of scenarios)
      this.found.set(s.scenario.id, { false_passes: [], mutation_misses: [], reference_misses: [], unproven: [] });
    const crossProduct =
      targets.length * scenarios.reduce((n, s) => n + (s.scenario.deterministic.violation ? 2 : 1), 0);
    this.coverage = layers.map((layer) => ({
      layer,
      cross_product: crossProduct,
      planned: 0,
      ran: 0,
      cannot_be_false: crossProduct,
    }));
  }

  /** The hostile cells a layer's run planned: each must report. */
  planned(layer: SelftestLayer, cells: PlannedCell[]): void {
    const c = this.coverage.find((x) => x.layer === layer)!;
    c.planned += cells.length;
    c.cannot_be_false -= cells.length;
    for (const cell of cells) this.awaited.set(key(cell), cell);
  }

  /** A hostile cell's result: false (toothless), exposed, or unproven. */
  hostileCell(layer: SelftestLayer, phase: JudgedAs, r: CellResult): void {
    this.cells++;
    this.coverage.find((x) => x.layer === layer)!.ran++;
    this.byVerdict[r.verdict] = (this.byVerdict[r.verdict] ?? 0) + 1;
    const cell: ProofCell = {
      scenario: r.scenario,
      target: r.target,
      layer,
      phase,
      verdict: r.verdict,
      reason: r.reason,
      cell_dir: r.cell_dir,
    };
    this.awaited.delete(key(cell));
    const f = this.found.get(r.scenario)!;
    const read = readHostileCell(this.byId.get(r.scenario)!.scenario, cell);
    if ('false' in read) f.false_passes.push(read.false);
    else if ('unproven' in read) f.unproven.push(read.unproven);
  }

  /** The reference target's cells (a correct server): each must pass or detect/defend. */
  referenceCells(results: CellResult[]): void {
    const byVerdict: Partial<Record<Verdict, number>> = {};
    for (const c of results) {
      byVerdict[c.verdict] = (byVerdict[c.verdict] ?? 0) + 1;
      const read = readReferenceCell({
        scenario: c.scenario,
        target: c.target,
        layer: 'deterministic',
        phase: judgedAsOf(c.phase),
        verdict: c.verdict,
        reason: c.reason,
        claimed: Boolean(c.claimed),
      });
      if (read && 'miss' in read) this.found.get(c.scenario)!.reference_misses.push(read.miss);
      else if (read) this.found.get(c.scenario)!.unproven.push(read.unproven);
    }
    this.reference = { cells: results.length, by_verdict: byVerdict };
  }

  /** The broken inputs applied, and those that reached a decision. */
  mutationsApplied(applied: number, misses: MutationMiss[]): void {
    for (const m of misses) this.found.get(m.scenario)!.mutation_misses.push(m);
    this.mutations = { applied, false: misses.length };
  }

  /**
   * Each scenario's status. `narrowed` names the parts of the proof left out; `cellDirsGone`
   * when the run directories were removed (their cell dirs would point at nothing).
   */
  report(o: { narrowed: string[]; cellDirsGone: boolean; runDirs: string[]; durationMs: number }): SelftestReport {
    for (const cell of this.awaited.values())
      this.found
        .get(cell.scenario)!
        .unproven.push({ ...cell, verdict: 'not run', why: 'the cell did not run (interrupted)' });
    const falsePasses = [...this.found.values()].flatMap((f) => f.false_passes);
    if (o.cellDirsGone) for (const f of falsePasses) delete (f as Partial<FalsePass>).cell_dir;
    const out = this.scenarios.map((s) => this.conclude(s, o.narrowed));
    const named = (st: SelftestScenario['status']) => out.filter((x) => x.status === st).map((x) => x.id);
    return {
      scenarios: out,
      targets: this.targets,
      layers: this.layers,
      cells: this.cells,
      coverage: this.coverage,
      by_verdict: this.byVerdict,
      false_passes: falsePasses,
      toothless: named('toothless'),
      fails_correct_server: named('fails-correct-server'),
      not_proven: named('not-proven'),
      proven: named('proven'),
      ...(o.narrowed.length ? { narrowed: o.narrowed } : {}),
      ...(this.reference ? { reference: this.reference } : {}),
      ...(this.mutations ? { mutations: this.mutations } : {}),
      run_dirs: o.runDirs,
      duration_ms: o.durationMs,
    };
  }

  /** One scenario's findings and status: proven is a claim over the whole matrix. */
  private conclude(s: LoadedScenario, narrowed: string[]): SelftestScenario {
    const f = this.found.get(s.scenario.id)!;
    if (narrowed.length)
      f.unproven.push({
        scenario: s.scenario.id,
        target: 'selftest',
        layer: this.layers[0],
        phase: 'well-behaved',
        verdict: 'not run',
        why: `selftest ran ${narrowed.join(', ')}: a scenario is proven only over all of them`,
      });
    if (!this.exposable(s))
      f.unproven.push({
        scenario: s.scenario.id,
        target: this.targets.join(', '),
        layer: this.layers[0],
        phase: 'well-behaved',
        verdict: 'not run',
        why: this.layerCannotRun(s) ?? 'no hostile target here could expose it (no rule of theirs applies)',
      });
    const status = proofStatus(f);
    return { id: s.scenario.id, file: s.file, status, toothless: status === 'toothless', ...f };
  }

  /**
   * Why no layer run here can play the scenario on any target (a real one too), if that is why no
   * hostile cell was planned: a kill scenario in an agent-only selftest is a limit of the layer,
   * not a scenario no hostile target could expose.
   */
  private layerCannotRun({ scenario: s }: LoadedScenario): string | undefined {
    const why = this.layers.every((l) => l === 'agent') ? agentLayerUnsupported(s) : undefined;
    return why && `the agent layer cannot run it on any target: ${why}`;
  }

  /** Could some hostile target here, in some layer run, make a verdict of the scenario false? */
  private exposable({ scenario: s }: LoadedScenario): boolean {
    return this.layers.some((layer) =>
      this.targets.some(
        (t) =>
          mayBeFalse(s, t, layer, 'well-behaved') ||
          (s.deterministic.violation !== null && mayBeFalse(s, t, layer, 'violation')),
      ),
    );
  }
}

const key = (c: PlannedCell) => `${c.scenario}\u0000${c.target}\u0000${c.layer}\u0000${c.phase}`;
