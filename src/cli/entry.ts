import { installSignals } from '../util/signals.js';
import { drained } from '../util/drain.js';

// first thing: loading the rest takes seconds, and a signal in that time must not kill memeval by signal
installSignals();
const { main } = await import('./main.js');

const code = await main();
// the one place memeval exits: a proxy whose agent still holds stdin open would otherwise
// linger. What was written to a pipe (a --json report) drains first.
await Promise.all([drained(process.stdout), drained(process.stderr)]);
process.exit(code);
