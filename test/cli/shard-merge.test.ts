import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { readRun } from '../../src/report/reader.js';
import { freshRun, memeval, mixedScenarios, tempDir, writeJson, timeLimit } from '../helpers.js';

test(
  '--shard 1/2 and 2/2 write partial reports that merge into one run; merge refuses mismatches',
  { timeout: timeLimit(300_000) },
  async (t) => {
    const scenarios = mixedScenarios(t);
    const sel = ['good-one', 'bad-one'];
    const s1 = await freshRun(t, sel, ['--scenarios', scenarios, '--shard', '1/2']);
    const s2 = await freshRun(t, sel, ['--scenarios', scenarios, '--shard', '2/2']);
    const r1 = readRun(s1.runDir).report;
    const r2 = readRun(s2.runDir).report;
    assert.match(s1.stdout, /shard 1\/2: 2 of 4 cell\(s\)/);
    assert.deepEqual((r1 as { shard?: unknown }).shard, { index: 1, count: 2, planned: 4 });
    const ids1 = r1.results.map((r) => r.cell_id);
    const ids2 = r2.results.map((r) => r.cell_id);
    assert.equal(ids1.length + ids2.length, 4);
    assert.deepEqual(
      ids1.filter((id) => ids2.includes(id)),
      [],
    );

    const out = tempDir(t);
    const m = await memeval(['merge', s1.runDir, s2.runDir, '--out', out, '--reporter', 'junit']);
    assert.equal(m.exitCode, 1, m.stderr); // bad-one fails, whichever shard ran it
    assert.match(m.stdout, /merged 2 run\(s\): 4 cell\(s\)/);
    assert.match(m.stdout, /bad-one +FAIL \/ detected !/);
    const [merged] = readdirSync(out);
    const { report } = readRun(join(out, merged));
    assert.equal(report.results.length, 4);
    assert.equal(report.summary.failed, 1);
    assert.deepEqual(report.options.merged_from, [r1.run_id, r2.run_id]);
    for (const r of report.results)
      assert.ok(existsSync(join(out, merged, r.cell_dir, 'evidence.db')), `${r.cell_id} evidence copied`);
    assert.ok(existsSync(join(out, merged, 'report.html')));
    assert.match(readFileSync(join(out, merged, 'junit.xml'), 'utf8'), /tests="4" failures="1"/);
    // the merged run's evidence opens like any other run's
    const q = await memeval([
      'sql',
      join(out, merged),
      'good-one',
      'server-memory',
      'well-behaved',
      'SELECT count(*) AS n FROM memories',
      '--json',
    ]);
    assert.equal(JSON.parse(q.stdout)[0].n, 1);

    // refusals: overlapping shards, another scenario set, another memeval version
    const again = await memeval(['merge', s1.runDir, s1.runDir, '--out', out]);
    assert.equal(again.exitCode, 3);
    assert.match(again.stderr, /is in both .* shards must not overlap/);
    // every shard of a run must be given the same --shard-durations (here: the merged run's)
    const other = await freshRun(
      t,
      ['good-one'],
      ['--scenarios', scenarios, '--shard', '2/2', '--shard-durations', join(out, merged)],
    );
    assert.match(other.stdout, /shard 2\/2: 1 of 2 cell\(s\)/);
    const diff = await memeval(['merge', s1.runDir, other.runDir, '--out', out]);
    assert.equal(diff.exitCode, 3);
    assert.match(diff.stderr, /scenarios \[good-one\] differ from .*\[bad-one, good-one\]|scenarios \[[^\]]+\] differ/);
    const fake = join(tempDir(t), 'fake');
    mkdirSync(fake);
    writeJson(join(fake, 'report.json'), {
      ...JSON.parse(readFileSync(s2.reportPath, 'utf8')),
      memeval_version: '0.0.1',
    });
    const ver = await memeval(['merge', s1.runDir, fake, '--out', out]);
    assert.equal(ver.exitCode, 3);
    assert.match(ver.stderr, /memeval_version 0\.0\.1, but .* has /);
    assert.equal(readdirSync(out).length, 1, 'a refused merge writes nothing');

    const bad = await memeval(['run', '--shard', '3/2', '--out', out]);
    assert.equal(bad.exitCode, 3);
    assert.match(bad.stderr, /--shard: "3\/2" is not i\/n/);
  },
);
