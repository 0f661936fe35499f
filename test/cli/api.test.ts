import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readReport, ReportError, run } from '../../src/index.js';
import { tempDir } from '../helpers.js';

test('the programmatic API runs a scenario and its report reads back through the schema', async (t) => {
  const out = tempDir(t);
  const lines: string[] = [];
  const r = await run({ scenarioIds: ['cross-session-recall'], outDir: out, workers: 2, log: (l) => lines.push(l) });
  assert.equal(r.exitCode, 0);
  assert.equal(r.report.summary.exit_code, 0);
  assert.deepEqual(
    r.report.results.map((c) => c.cell_id),
    ['cross-session-recall/server-memory/well-behaved', 'cross-session-recall/server-memory/violation'],
  );
  assert.ok(r.report.results.every((c) => c.driver === 'replay'));
  const back = readReport(join(out, r.report.run_id));
  assert.equal(back.run_id, r.report.run_id);
  assert.match(lines.join('\n'), /1 scenario\(s\) × server-memory/);

  // a report of another schema version, or a broken one, is refused with the field named
  const file = r.reportPath;
  const raw = JSON.parse(readFileSync(file, 'utf8'));
  writeFileSync(file, JSON.stringify({ ...raw, schema_version: 1 }));
  assert.throws(() => readReport(file), (e: Error) => e instanceof ReportError && /schema_version 1 is not 2/.test(e.message));
  writeFileSync(file, JSON.stringify({ ...raw, results: [{ ...raw.results[0], verdict: 'great' }] }));
  assert.throws(() => readReport(file), (e: Error) => e instanceof ReportError && /results\.0\.verdict/.test(e.message));
});
