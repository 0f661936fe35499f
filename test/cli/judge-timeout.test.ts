import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memeval, tempDir, timeLimit } from '../helpers.ts';
import { faultyTarget, scenarioDir } from '../faulty.ts';

const FOREVER = 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r';

test('an sql assertion that never ends: error "judge timed out after N ms", the run goes on and ends', async (t) => {
  const dir = tempDir(t);
  const out = tempDir(t);
  const sc = scenarioDir(dir, 1, {
    assertions: [
      { kind: 'count', name: 'dark mode once', phase: 'both', contains: 'dark mode', op: 'eq', value: 1 },
      { kind: 'sql', name: 'never ends', phase: 'both', query: FOREVER, op: 'eq', value: 1 },
    ],
  });
  const file = faultyTarget(dir, 'faulty', 'ok');
  const t0 = Date.now();
  const r = await memeval(['run', '--scenarios', sc, '--target', file, '--out', out, '--json', '--workers', '1'], {
    env: { NO_COLOR: '1', MEMEVAL_JUDGE_TIMEOUT_MS: '3000' },
    timeout: timeLimit(120_000),
  });
  assert.equal(r.exitCode, 1, String(r.stderr).slice(-500));
  const report = JSON.parse(String(r.stdout));
  for (const res of report.results) {
    assert.equal(res.verdict, 'error');
    const j = res.assertions.find((a: { name: string }) => a.name === 'never ends');
    assert.equal(j.outcome, 'error');
    assert.equal(j.detail, 'judge timed out after 3000 ms');
    assert.notEqual(
      res.assertions.find((a: { name: string }) => a.name === 'dark mode once').outcome,
      'error',
      'the other judges still ran',
    );
  }
  assert.ok(Date.now() - t0 < timeLimit(100_000));
});

test('an sql juror that never ends is held to the same time limit as an sql assertion (fails on main before this change: it ran unbounded)', async (t) => {
  const dir = tempDir(t);
  const out = tempDir(t);
  const sc = scenarioDir(dir, 1, {
    assertions: [
      {
        kind: 'jury',
        name: 'jury with a runaway juror',
        phase: 'both',
        rule: 'unanimous',
        errors: 'error',
        judges: [
          { kind: 'count', name: 'dark mode once', contains: 'dark mode', op: 'eq', value: 1 },
          { kind: 'sql', name: 'never ends', query: FOREVER, op: 'eq', value: 1 },
        ],
      },
    ],
  });
  const file = faultyTarget(dir, 'faulty', 'ok');
  const r = await memeval(['run', '--scenarios', sc, '--target', file, '--out', out, '--json', '--workers', '1'], {
    env: { NO_COLOR: '1', MEMEVAL_JUDGE_TIMEOUT_MS: '3000' },
    timeout: timeLimit(120_000),
  });
  assert.equal(r.exitCode, 1, String(r.stderr).slice(-500));
  const report = JSON.parse(String(r.stdout));
  for (const res of report.results) {
    assert.equal(res.verdict, 'error');
    const jury = res.assertions[0];
    assert.equal(jury.outcome, 'error');
    const juror = jury.members.find((m: { name: string }) => m.name === 'never ends');
    assert.equal(juror.detail, 'judge timed out after 3000 ms');
  }
});
