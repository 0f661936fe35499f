import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readReport, ReportError, run, type Assertion } from '../../src/index.js';
import { assertionApplies } from '../../src/scenario/schema.js';
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

test('which assertions judge which cell', () => {
  const a = (phase: Assertion['phase']) => ({ phase }) as Assertion;
  const table: [Assertion['phase'], 'well-behaved' | 'violation', boolean, boolean][] = [
    ['both', 'well-behaved', false, true],
    ['well-behaved', 'well-behaved', false, true],
    ['violation', 'well-behaved', false, false],
    ['real-model', 'well-behaved', false, false],
    ['both', 'violation', false, true],
    ['violation', 'violation', false, true],
    ['well-behaved', 'violation', false, false],
    // an agent cell: well-behaved runs keep the positive expectations and add real-model ones
    ['both', 'well-behaved', true, true],
    ['well-behaved', 'well-behaved', true, true],
    ['real-model', 'well-behaved', true, true],
    ['violation', 'well-behaved', true, false],
    // a scripted --policy violation run is judged like the violation phase
    ['violation', 'violation', true, true],
    ['real-model', 'violation', true, false],
    ['well-behaved', 'violation', true, false],
  ];
  for (const [phase, judgedAs, realModel, applies] of table) assert.equal(assertionApplies(a(phase), judgedAs, realModel), applies, `${phase} in ${judgedAs}${realModel ? ' (agent)' : ''}`);
});
