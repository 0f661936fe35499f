import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copies, faultyDecl, runInline, timeLimit, type Decl } from '../kit.ts';

// in process through the kit: the time limit is read per judge call, in this process
const run = (t: { after: (fn: () => void) => void }, over: Decl) =>
  runInline(t, {
    scenarios: copies(1, over),
    targets: [faultyDecl('faulty', 'ok')],
    config: { workers: 1 },
    env: { MEMEVAL_JUDGE_TIMEOUT_MS: '3000' },
  });

const FOREVER = 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r';

test(
  'an sql assertion that never ends: error "judge timed out after N ms", the run goes on and ends',
  { timeout: timeLimit(120_000) },
  async (t) => {
    const t0 = Date.now();
    const r = await run(t, {
      assertions: [
        { kind: 'count', name: 'dark mode once', phase: 'both', contains: 'dark mode', op: 'eq', value: 1 },
        { kind: 'sql', name: 'never ends', phase: 'both', query: FOREVER, op: 'eq', value: 1 },
      ],
    });
    assert.equal(r.exitCode, 1, r.output.slice(-500));
    for (const res of r.results) {
      assert.equal(res.verdict, 'error');
      const j = res.assertions.find((a) => a.name === 'never ends') ?? assert.fail('no judgment "never ends"');
      assert.equal(j.outcome, 'error');
      assert.equal(j.detail, 'judge timed out after 3000 ms');
      assert.notEqual(
        res.assertions.find((a) => a.name === 'dark mode once')?.outcome,
        'error',
        'the other judges still ran',
      );
    }
    assert.ok(Date.now() - t0 < timeLimit(100_000));
  },
);

test(
  'an sql juror that never ends is held to the same time limit as an sql assertion (fails on main before this change: it ran unbounded)',
  { timeout: timeLimit(120_000) },
  async (t) => {
    const r = await run(t, {
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
    assert.equal(r.exitCode, 1, r.output.slice(-500));
    for (const res of r.results) {
      assert.equal(res.verdict, 'error');
      const jury = res.assertions[0];
      assert.equal(jury.outcome, 'error');
      const members = (jury as { members?: { name: string; detail?: string }[] }).members ?? [];
      const juror = members.find((m) => m.name === 'never ends') ?? assert.fail('no juror "never ends"');
      assert.equal(juror.detail, 'judge timed out after 3000 ms');
    }
  },
);
