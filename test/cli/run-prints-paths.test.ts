/**
 * Issue 31: `run` printed no path for the files its reporters wrote, `--keep` never said where the
 * kept store is, and `merge` printed no recap of the cells that fail the run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { freshRun, memeval, mixedScenarios } from '../helpers.ts';
import { tempDir, timeLimit } from '../kit.ts';

test(
  "run prints the reporters' files and the kept stores; merge recaps the cells that fail the run",
  { timeout: timeLimit(300_000) },
  async (t) => {
    const run = await freshRun(
      t,
      ['good-one', 'bad-one'],
      ['--scenarios', mixedScenarios(t), '--reporter', 'junit,markdown', '--keep'],
    );
    const report = JSON.parse(readFileSync(run.reportPath, 'utf8')) as {
      results: { cell_id: string; fixture: string; kept_store?: string }[];
    };
    t.after(() => {
      for (const r of report.results)
        if (r.fixture.startsWith('/')) rmSync(r.fixture, { recursive: true, force: true });
    });
    assert.equal(run.exitCode, 1, run.stderr);
    assert.match(run.stdout, new RegExp(`^junit: ${join(run.runDir, 'junit.xml')}$`, 'm'));
    assert.match(run.stdout, new RegExp(`^markdown: ${join(run.runDir, 'summary.md')}$`, 'm'));

    // --keep: every cell's store, in its kept fixture, named on the console and in the report
    assert.match(run.stdout, /^kept 4 fixture\(s\); each cell's store:$/m);
    for (const r of report.results) {
      assert.ok(r.kept_store, `${r.cell_id}: no kept_store`);
      assert.ok(r.kept_store.startsWith(r.fixture), `${r.cell_id}: ${r.kept_store} is not in ${r.fixture}`);
      assert.ok(existsSync(r.kept_store), `${r.cell_id}: ${r.kept_store} does not exist`);
      assert.ok(run.stdout.includes(`  ${r.cell_id}: ${r.kept_store}`), run.stdout);
    }

    // merge: the cells that fail the merged run, with why
    const out = tempDir(t, 'memeval-merged-');
    const m = await memeval(['merge', run.runDir, '--out', out], { env: { NO_COLOR: '1' } });
    assert.equal(m.exitCode, 1, String(m.stderr));
    assert.match(
      String(m.stdout),
      /1 cell\(s\) fail the run:\n {2}✗ bad-one \[server-memory\] well-behaved: fail — .*dark mode twice.*\n\s+why: t: d/,
    );
  },
);
