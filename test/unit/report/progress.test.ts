import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Chalk } from 'chalk';
import { formatRecap, Progress, type ProgressCell } from '../../../src/report/progress.js';

test('the recap names a claimed defence that was only detected', () => {
  const cell: ProgressCell = {
    scenario: 'secret-api-keys-not-stored',
    target: 'memorix',
    phase: 'violation',
    verdict: 'detected',
    reason: 'caught by: no key',
    fails_run: true,
    duration_ms: 5,
    claimed: true,
    defence: 'secret-redaction',
    assertions: [{ name: 'no key', outcome: 'fail', actual: 'found in memories.content (1 row)', expected: 'nowhere' }],
  };
  const text = formatRecap(
    {
      status: 'completed',
      summary: { cells: 1, passed: 0, failed: 1, by_verdict: { detected: 1 }, exit_code: 1 },
      results: [cell],
    },
    '/r/report.json',
    65_000,
    new Chalk({ level: 0 }),
  );
  assert.match(
    text,
    /✗ secret-api-keys-not-stored \[memorix\] violation: detected — claims secret-redaction, only detected \(no key: actual found in memories\.content \(1 row\), expected nowhere\)/,
  );
  assert.match(text, /wall time 1m05s/);
});

test('the live line counts unsupported cells apart from passed ones', () => {
  let text = '';
  const p = new Progress({ total: 3, tty: true, color: 0, write: (s) => (text = s), now: () => 0 });
  const cell = (verdict: ProgressCell['verdict'], fails_run = false): ProgressCell => ({
    scenario: 's',
    target: 't',
    phase: 'well-behaved',
    verdict,
    reason: 'r',
    fails_run,
    duration_ms: 1,
    assertions: [],
  });
  p.cell(cell('pass'));
  p.cell(cell('unsupported'));
  p.cell(cell('unsupported'));
  assert.match(text, /\[3\/3\] 1 passed, 0 failed, 2 unsupported, ETA/);
});
