// The unit tier runs in two processes, not one per file: starting node with tsx costs about a
// second a file, more than most files' tests take. Each shard imports its share of
// test/unit/**/*.test.ts, each file inside a suite of its own name, so a file's top-level
// before/after hooks stay its own and its tests are reported under its path.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe } from 'node:test';
import { pathToFileURL } from 'node:url';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const UNIT = join(ROOT, 'test', 'unit');

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? testFiles(join(dir, e.name)) : e.name.endsWith('.test.ts') ? [join(dir, e.name)] : [],
    )
    .sort();
}

/** The unit test files of shard `k` of `n`: the largest first, each to the lightest shard so far. */
export function shardFiles(k: number, n: number): string[] {
  const load = new Array<number>(n).fill(0);
  const out: string[][] = Array.from({ length: n }, () => []);
  const sized = testFiles(UNIT)
    .map((f) => ({ f, size: statSync(f).size }))
    .sort((a, b) => b.size - a.size || a.f.localeCompare(b.f));
  for (const { f, size } of sized) {
    const i = load.indexOf(Math.min(...load));
    out[i].push(f);
    load[i] += size;
  }
  return out[k].sort();
}

export function runUnitShard(k: number, n: number): void {
  for (const file of shardFiles(k, n))
    describe(relative(ROOT, file), async () => {
      await import(pathToFileURL(file).href);
    });
}
