import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { readRun } from '../../src/report/reader.js';
import { InputError } from '../../src/util/errors.js';
import { memeval } from '../helpers.ts';
import { rawReport, runInline, tempDir, timeLimit } from '../kit.ts';

test(
  'readRun reads a real run and names file and field when a report is damaged',
  { timeout: timeLimit(120_000) },
  async (t) => {
    const run = await runInline(t, { targets: ['server-memory'], config: { scenarioIds: ['cross-session-recall'] } });
    const { report, runDir } = readRun(run.runDir ?? assert.fail(`the run wrote no run directory:\n${run.output}`));
    assert.equal(runDir, run.runDir);
    assert.equal(report.results.length, 2);
    assert.deepEqual(report.results.map((r) => r.cell_id).sort(), [
      'cross-session-recall/server-memory/violation',
      'cross-session-recall/server-memory/well-behaved',
    ]);
    assert.ok(report.results.every((r) => r.driver === 'replay'));

    const dir = tempDir(t);
    const raw = rawReport(runDir) as { results: { verdict: string }[] };
    const old = join(dir, 'old');
    mkdirSync(old);
    writeFileSync(join(old, 'report.json'), JSON.stringify({ ...raw, schema_version: 1 }));
    assert.throws(
      () => readRun(old),
      (e: Error) => e instanceof InputError && /report\.json: schema_version 1 is not 2/.test(e.message),
    );

    const broken = join(dir, 'broken.json');
    raw.results[1].verdict = 'maybe';
    writeFileSync(broken, JSON.stringify(raw));
    assert.throws(
      () => readRun(broken),
      (e: Error) => e.message.includes(`${broken}: results.1.verdict:`),
    );
    assert.throws(() => readRun(join(dir, 'nope')), /no report \(is this a run directory/);

    // the CLI refuses it with exit 3, naming file and field
    const r = await memeval(['view', broken]);
    assert.equal(r.exitCode, 3, r.stderr);
    assert.match(r.stderr, /results\.1\.verdict/);
  },
);
