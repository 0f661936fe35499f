import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readReport, ReportError, run } from '../../src/index.js';
import type { GateResult } from '../../src/report/gate.js';
import { freshRun, memeval, mixedScenarios, tempDir, timeLimit } from '../helpers.js';

test('the programmatic API runs a scenario and its report reads back through the schema', async (t) => {
  const out = tempDir(t);
  const lines: string[] = [];
  // a key in the environment is read where a call is made, never kept in the config or the report
  const key = 'sk-memeval-test-never-in-a-report';
  const before = process.env.MEMEVAL_JUDGE_API_KEY;
  process.env.MEMEVAL_JUDGE_API_KEY = key;
  t.after(() =>
    before === undefined ? delete process.env.MEMEVAL_JUDGE_API_KEY : (process.env.MEMEVAL_JUDGE_API_KEY = before),
  );
  const r = await run({
    scenarioIds: ['cross-session-recall'],
    outDir: out,
    workers: 2,
    judge: { model: 'scripted' },
    log: (l) => lines.push(l),
  });
  assert.equal(r.exitCode, 0);
  assert.ok(!readFileSync(r.reportPath, 'utf8').includes(key));
  // the report keeps the resolved config: defaults filled, no agent group for a deterministic run
  assert.deepEqual(r.report.config?.scenarioIds, ['cross-session-recall']);
  assert.equal(r.report.config?.outDir, out);
  assert.deepEqual(r.report.config?.judge, { model: 'scripted' });
  assert.equal(r.report.config?.agent, undefined);
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
  assert.throws(
    () => readReport(file),
    (e: Error) => e instanceof ReportError && /schema_version 1 is not 2/.test(e.message),
  );
  writeFileSync(file, JSON.stringify({ ...raw, results: [{ ...raw.results[0], verdict: 'great' }] }));
  assert.throws(
    () => readReport(file),
    (e: Error) => e instanceof ReportError && /results\.0\.verdict/.test(e.message),
  );
});

test(
  'run() from the API applies a baseline as the CLI does: the same exit code and gate in the report',
  { timeout: timeLimit(300_000) },
  async (t) => {
    const scenarios = mixedScenarios(t);
    const ids = ['good-one', 'bad-one'];
    // bad-one fails on server-memory: a baseline that failed it the same way makes it known, not a regression
    const base = await freshRun(t, ids, ['--scenarios', scenarios]);
    assert.equal(base.exitCode, 1);
    const cli = await memeval([
      'run',
      '--scenarios',
      scenarios,
      '--scenario',
      ids.join(','),
      '--target',
      'server-memory',
      '--out',
      tempDir(t),
      '--baseline',
      base.runDir,
    ]);
    assert.equal(cli.exitCode, 0, String(cli.stderr));
    const api = await run({
      scenariosDir: scenarios,
      scenarioIds: ids,
      targets: ['server-memory'],
      outDir: tempDir(t),
      gate: { baseline: base.runDir },
    });
    assert.equal(api.exitCode, cli.exitCode, 'the API exits as the CLI does with the same baseline');
    assert.equal(api.report.summary.exit_code, cli.exitCode);
    // the report schema passes gate through undeclared (typed {}): read it back as the gate wrote it
    assert.deepEqual(
      (readReport(api.reportPath).gate as GateResult | undefined)?.known.map((c) => c.cell_id),
      ['bad-one/server-memory/well-behaved'],
    );
  },
);
