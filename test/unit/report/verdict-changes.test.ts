import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Chalk } from 'chalk';
import type { CellResult } from '../../../src/core/results.js';
import { formatVerdictChanges, verdictChanges } from '../../../src/report/verdict-changes.js';

const judged = (verdict: CellResult['verdict'], outcome: 'pass' | 'fail') =>
  ({
    cell_id: 'pivot-refs/server-memory/well-behaved',
    verdict,
    fails_run: verdict === 'fail',
    assertions: [{ name: 'the ref is stored once', outcome }],
  }) as unknown as CellResult;

test('rejudge says which verdicts and assertions changed against the run, or that none did', () => {
  const c = new Chalk({ level: 0 });
  const changes = verdictChanges([judged('pass', 'pass')], [judged('fail', 'fail')]);
  assert.deepEqual(formatVerdictChanges(changes, c), [
    '1 verdict(s) changed:',
    '  pivot-refs/server-memory/well-behaved: pass -> fail',
    '    the ref is stored once: pass -> fail',
  ]);
  assert.deepEqual(formatVerdictChanges(verdictChanges([judged('pass', 'pass')], [judged('pass', 'pass')]), c), [
    'no verdict changed',
  ]);
});
