/**
 * Start-up of the built CLI: commands that run nothing (`--version`, `--help`) or only read files
 * (`list`, `validate`), timed beside bare `node -e 0`, interleaved so machine noise hits them alike.
 * With `against`, another memeval checkout's built CLI (e.g. main's) is timed in the same rounds.
 *
 *   npm run build && node --import tsx bench/startup.ts [--runs N] [--startup-against <checkout>]
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PROJECT_ROOT } from '../src/util/paths.js';

const COMMANDS = [['--version'], ['--help'], ['list'], ['validate']];

function timeOnce(args: string[]): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: PROJECT_ROOT, stdio: 'ignore', env: process.env });
  const ms = performance.now() - t0;
  // a command that failed timed something else than its start-up
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status ?? r.signal}`);
  return ms;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export function benchStartup(runs: number, against?: string): void {
  const entries: [string, string][] = [['this tree', join(PROJECT_ROOT, 'dist', 'cli', 'entry.js')]];
  if (against) entries.push([against, join(against, 'dist', 'cli', 'entry.js')]);
  for (const [, entry] of entries)
    if (!existsSync(entry)) throw new Error(`${entry}: not built (npm run build in that checkout)`);
  const cases: { label: string; args: string[] }[] = [{ label: 'node -e 0', args: ['-e', '0'] }];
  for (const argv of COMMANDS)
    for (const [name, entry] of entries)
      cases.push({ label: `${argv.join(' ')}${against ? ` (${name})` : ''}`, args: [entry, ...argv] });
  const times = cases.map(() => [] as number[]);
  timeOnce(cases[1].args); // warm-up: the page cache
  for (let i = 0; i < runs; i++) cases.forEach((c, j) => times[j].push(timeOnce(c.args)));
  const bare = median(times[0]);
  console.log(`\nstart-up of the built CLI, median of ${runs} runs (wall ms, ratio to bare node):`);
  const w = Math.max(...cases.map((c) => c.label.length));
  cases.forEach((c, j) => {
    const m = median(times[j]);
    console.log(`  ${c.label.padEnd(w)}  ${m.toFixed(0).padStart(6)} ms  ${(m / bare).toFixed(2)}x`);
  });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const argv = process.argv.slice(2);
  const at = (flag: string) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined);
  benchStartup(Number(at('--runs')) || 9, at('--startup-against'));
}
