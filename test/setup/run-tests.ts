// Runs the test files of the tiers named on the command line (unit, cli, agents) with node's test
// runner; the unit tier in two processes that import its files (unit-shards.ts). Node 20's --test takes file names, not ** patterns, and npm runs scripts with sh (no
// globstar), so this lists every *.test.ts under test/<tier>/ at any depth: a file added to any
// folder of a tier runs without touching package.json. Other arguments go to node (e.g.
// --test-name-pattern=...); the default concurrency is one file per core of a 2-core machine.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TIERS = ['unit', 'cli', 'agents'];

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? testFiles(join(dir, e.name)) : e.name.endsWith('.test.ts') ? [join(dir, e.name)] : [],
    )
    .sort();
}

const args = process.argv.slice(2);
const tiers = args.filter((a) => !a.startsWith('-'));
const unknown = tiers.filter((t) => !TIERS.includes(t));
if (tiers.length === 0 || unknown.length > 0) {
  console.error(
    `usage: run-tests.ts <${TIERS.join('|')}>... [node --test options]${unknown.length ? ` (unknown tier: ${unknown.join(', ')})` : ''}`,
  );
  process.exit(2);
}
// the unit tier runs in two processes that import its files (unit-shards.ts), the others a process per file
const UNIT_SHARDS = ['test/setup/unit-shard-0.ts', 'test/setup/unit-shard-1.ts'];
const files = tiers.flatMap((t) =>
  t === 'unit' && testFiles(join(ROOT, 'test', t)).length
    ? UNIT_SHARDS
    : testFiles(join(ROOT, 'test', t)).map((f) => relative(ROOT, f)),
);
if (files.length === 0) {
  console.error(`no *.test.ts under test/${tiers.join(', test/')}`);
  process.exit(1);
}
const options = args.filter((a) => a.startsWith('-'));
if (!options.some((o) => o.startsWith('--test-concurrency'))) options.unshift('--test-concurrency=2');
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', ...options, ...files], {
  cwd: ROOT,
  stdio: 'inherit',
});
process.exit(r.status ?? 1);
