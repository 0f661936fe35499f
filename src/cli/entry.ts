import { main } from './main.js';

// the one place memeval exits: a proxy whose agent still holds stdin open would otherwise linger
process.exit(await main());
