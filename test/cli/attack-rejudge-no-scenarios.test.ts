/**
 * Attack: `memeval rejudge --scenarios <a folder without the run's scenarios>` (a wrong path, or a
 * scenario file deleted since the run). Every cell is kept as the run judged it ("not re-judged:
 * scenario … is not among the loaded scenarios"), and rejudge prints "no verdict changed", "4
 * passed, 0 failed" and exits 0: a re-judge that judged nothing reads as one that confirmed every
 * verdict. A cell whose scenario cannot be loaded cannot be re-judged faithfully (as a changed
 * scenario file is refused): exit 3 naming the scenario and the folder, before anything is written.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hostileDecl, keeps, runInline, scenarioFolder, tempDir, timeLimit } from '../kit.ts';
import { memeval } from '../helpers.ts';

test(
  'rejudge with a scenarios folder that lacks the run’s scenarios refuses instead of confirming every verdict',
  { timeout: timeLimit(120_000) },
  async (t) => {
    const dir = tempDir(t);
    const one = (id: string) => keeps(id, `User prefers ${id}`, id);
    const other = scenarioFolder(dir, [one('rj-unrelated')], 'other');
    const run = await runInline(t, {
      scenarios: [one('rj-a')],
      targets: [hostileDecl('honest', { name: 'honest', ops: ['remember'] })],
    });
    assert.equal(run.exitCode, 0, run.output);
    const r = await memeval(['rejudge', run.runDir!, '--scenarios', other]);
    assert.equal(r.exitCode, 3, `rejudge judged nothing and exited ${r.exitCode}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, /rj-a/);
  },
);
