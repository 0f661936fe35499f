import type { ClockRecord, NetworkMode, StepRecord, StoreSqlRecord } from '../core/results.js';
import type { WriteRecord } from '../ops/writes.js';

const WEAKEST_LAST: NetworkMode[] = ['isolated', 'guarded', 'open'];

/**
 * What a cell leaves for its result however it ends (a throw, an interrupt): the steps issued,
 * how its servers ran and stopped, the lifecycle's warnings, the fixture's fate. Stages append
 * as they go, so a stage that throws halfway still leaves what it did.
 */
export class CellTrail {
  readonly steps: StepRecord[] = [];
  /** every write op memeval issued (seeds, setup steps, the phase) and how it was answered: the evidence's `writes` */
  readonly writes: WriteRecord[] = [];
  /** `setup.store_sql` as it ran (absent: the scenario pins nothing on this target) */
  storeSql?: StoreSqlRecord[];
  /** the lifecycle's warnings (a server that had to be killed, seeds stored only at exit), in order */
  readonly warnings: string[] = [];
  /** how this cell's servers ended when stopped: a crash at shutdown, a store lost at exit */
  readonly shutdown: string[] = [];
  /** the stderr of the first server that stopped badly */
  shutdownStderr = '';
  readonly serverStartMs: number[] = [];
  /** the weakest guard any server of this cell ran under */
  network?: NetworkMode;
  /** the shifted wall clock the servers ran on (clock scenarios only) */
  clock?: ClockRecord;
  /** what became of the fixture at teardown */
  fixture = 'not created';

  sawNetwork(m: NetworkMode): void {
    if (!this.network || WEAKEST_LAST.indexOf(m) > WEAKEST_LAST.indexOf(this.network)) this.network = m;
  }
}
