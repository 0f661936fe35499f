import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CellResult } from '../../../src/core/results.ts';
import { combineAttempts, runWithRetries } from '../../../src/cell/retries.ts';

const cell = (verdict: CellResult['verdict'], fails_run: boolean, dir = 'd') =>
  ({ cell_id: 's/t/well-behaved', verdict, fails_run, reason: verdict, cell_dir: dir, duration_ms: 1 }) as CellResult;

test('a retry that passes makes the cell flaky, failing the run only when asked; one that errors is no pass', () => {
  const flaky = combineAttempts([cell('fail', true, 'a'), cell('pass', false, 'b')], false);
  assert.deepEqual([flaky.verdict, flaky.fails_run, flaky.cell_dir], ['flaky', false, 'b']);
  assert.deepEqual(
    flaky.attempts!.map((a) => [a.verdict, a.cell_dir]),
    [
      ['fail', 'a'],
      ['pass', 'b'],
    ],
  );
  assert.equal(combineAttempts([cell('fail', true), cell('pass', false)], true).fails_run, true);
  const broke = combineAttempts([cell('fail', true), cell('error', true), cell('skipped', false)], false);
  assert.deepEqual([broke.verdict, broke.fails_run, broke.attempts!.length], ['fail', true, 3]);
  // a cell run once carries no attempts
  assert.equal(combineAttempts([cell('fail', true)], false).attempts, undefined);
});

test('a retry the run was interrupted during is skipped, not flaky, and no further one starts', async () => {
  const abort = new AbortController();
  let runs = 0;
  const r = await runWithRetries(
    async (k) => {
      runs++;
      if (k === 1) abort.abort();
      return k === 0 ? cell('fail', true) : cell('pass', false);
    },
    3,
    false,
    abort.signal,
  );
  assert.equal(runs, 2);
  assert.deepEqual([r.verdict, r.fails_run], ['fail', true]);
  assert.deepEqual(
    r.attempts!.map((a) => a.verdict),
    ['fail', 'skipped'],
  );
});
