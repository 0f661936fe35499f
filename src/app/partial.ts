import type { CellResult } from '../core/results.js';
import type { CellSpec } from '../cell/plan.js';

const live = new Set<() => void>();

/**
 * Write every live run's report now, synchronously: the second Ctrl-C quits without waiting for
 * cells, but the report still says what finished and marks the rest skipped.
 */
export function writePartialReportsNow(): void {
  for (const flush of live) {
    try {
      flush();
    } catch {
      /* a disk that fails now fails the report; fixtures and processes are handled by the caller */
    }
  }
  live.clear();
}

/** The results a run has so far, and how to write them as an interrupted report. */
export class PartialRun {
  private readonly done: CellResult[] = [];
  private readonly flush = () => {
    const finished = new Set(this.done.map((r) => r.cell_id));
    const rest = this.planned.filter((p) => !finished.has(p.id)).map(skipped);
    this.write([...this.done, ...rest]);
  };

  constructor(
    private readonly planned: CellSpec[],
    private readonly write: (results: CellResult[]) => void,
  ) {
    live.add(this.flush);
  }

  add(r: CellResult): void {
    this.done.push(r);
  }

  /** The run writes its own report from here on. */
  close(): void {
    live.delete(this.flush);
  }
}

function skipped(p: CellSpec): CellResult {
  return {
    cell_id: p.id,
    scenario: p.scenario.scenario.id,
    target: p.target.decl.name,
    target_version: p.target.bin.version,
    phase: p.phase,
    driver: p.driver,
    ...(p.repeat === undefined ? {} : { repeat: p.repeat }),
    cell_dir: p.dir,
    verdict: 'skipped',
    reason: 'run stopped by a second interrupt before this cell finished',
    fails_run: false,
    steps: [],
    assertions: [],
    fixture: 'removed',
    warnings: [],
    duration_ms: 0,
  };
}
