import type { Writable } from 'node:stream';
import { installSignals } from '../util/signals.js';

// first thing: loading the rest takes seconds, and a signal in that time must not kill memeval by signal
installSignals();
const { main } = await import('./main.js');

/** Resolves once what was written has been flushed, the stream broke, or 10 s passed. */
function drained(s: Writable): Promise<void> {
  if (!s.writableNeedDrain) return Promise.resolve();
  return new Promise((r) => {
    for (const ev of ['drain', 'error', 'close']) s.once(ev, () => r());
    setTimeout(r, 10000).unref();
  });
}

const code = await main();
// the one place memeval exits: a proxy whose agent still holds stdin open would otherwise
// linger. What was written to a pipe (a --json report) drains first.
await Promise.all([drained(process.stdout), drained(process.stderr)]);
process.exit(code);
