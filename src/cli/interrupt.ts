import chalk from 'chalk';
import { removeAllFixturesNow } from '../fixture/fixture.js';
import { killAllNow } from '../util/processes.js';
import { onSignal } from '../util/signals.js';
import { writePartialReportsNow } from '../app/partial.js';

/**
 * Ctrl-C (or SIGTERM) once: abort the run, stop every child; the cells end as skipped and the
 * report is written. Twice: no more politeness, but fixtures (copies of secret stores) are still
 * removed and every process group killed before memeval exits 130.
 */
export function interruptHandler(
  log: (s: string) => void,
  hardExit: (code: number) => never,
): { abort: AbortController; dispose: () => void } {
  const abort = new AbortController();
  let interrupts = 0;
  const handle = () => {
    interrupts++;
    killAllNow();
    if (interrupts === 1) {
      log(
        chalk.yellow(
          '\ninterrupted: stopping servers and agents, removing fixtures, writing the report (Ctrl-C again to quit now)',
        ),
      );
      abort.abort();
    } else {
      removeAllFixturesNow();
      writePartialReportsNow();
      hardExit(130);
    }
  };
  return { abort, dispose: onSignal(handle) };
}
