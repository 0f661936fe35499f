/**
 * Attack: `--last-failed` after a sharded run. The latest run under --out is shard 1/2: its plan
 * records all the cells, its results only half. `--last-failed` reads "no cell failed the run in
 * the latest run" and exits 0 ("nothing to rerun"), though the other half of the cells never ran
 * in it (one of them may fail). A part of a run cannot say nothing failed: exit 3 with the
 * reason, as for an interrupted latest run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hostileDecl, keeps, runInline, tempDir, timeLimit } from '../kit.ts';

test(
  '--last-failed after a shard of a run refuses: the shard did not run every planned cell',
  { timeout: timeLimit(120_000) },
  async (t) => {
    const common = {
      scenarios: ['a', 'b', 'c', 'd'].map((n) => keeps(`lf-${n}`, `User prefers tool-${n}`, `tool-${n}`)),
      targets: [hostileDecl('honest', { name: 'honest', ops: ['remember', 'recall'] })],
      out: tempDir(t),
    };
    const shard = await runInline(t, { ...common, config: { shard: { index: 1, count: 2 } } });
    assert.equal(shard.exitCode, 0, shard.output);
    const again = await runInline(t, { ...common, config: { lastFailed: true } });
    assert.notEqual(
      again.exitCode,
      0,
      `--last-failed after shard 1/2 exited 0: ${again.output} (half of the planned cells never ran)`,
    );
    assert.equal(again.exitCode, 3, again.output);
  },
);
