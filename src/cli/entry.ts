import { installSignals } from '../util/signals.js';

// first thing: loading the rest takes seconds, and a signal in that time must not kill memeval by signal
installSignals();
const { main } = await import('./main.js');

// the one place memeval exits: a proxy whose agent still holds stdin open would otherwise linger
process.exit(await main());
