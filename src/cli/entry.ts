import { main } from './main.js';

const code = await main();
// the one place memeval exits: a proxy whose agent still holds stdin open would otherwise
// linger. Let what was written to a pipe (a --json report) drain first.
await Promise.all([process.stdout, process.stderr].map((s) => new Promise<void>((r) => (s.writableNeedDrain ? s.once('drain', () => r()) : r()))));
process.exit(code);
