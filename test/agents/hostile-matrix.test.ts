/**
 * The hostile-target matrix in the agent layer: claude-code with the scripted model against the
 * hostile targets whose hostility an agent meets differently from the replay driver (the
 * deterministic layer is in test/cli/hostile-matrix.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memeval, timeLimit } from '../helpers.js';
import { falsePassLine, parseSelftest } from '../selftest-report.js';

const ENV = { NO_COLOR: '1', FORCE_COLOR: '0', MEMEVAL_CACHE_DIR: process.env.MEMEVAL_CACHE_DIR ?? '' };

test(
  'agent layer (claude-code, scripted model): no false pass where an agent meets the hostility',
  { timeout: timeLimit(20 * 60_000) },
  async (t) => {
    // an agent discovers tools and reads recalls itself: the targets whose hostility it meets
    // differently, on one scenario that writes and recalls and one whose violation writes secrets
    const r = await memeval(
      [
        'selftest',
        '--json',
        '--workers',
        '3',
        '--layer',
        'agent',
        '--agent',
        'claude-code',
        '--install',
        '--target',
        'hostile-no-list,hostile-refuse,hostile-blackhole,hostile-recall-error',
        '--scenario',
        'cross-session-recall,secret-api-keys-not-stored',
      ],
      { env: ENV, timeout: timeLimit(20 * 60_000) },
    );
    const rep = parseSelftest(String(r.stdout), String(r.stderr));
    t.diagnostic(
      `${rep.cells} agent cell(s) in ${Math.round(rep.duration_ms / 1000)} s: ${JSON.stringify(rep.by_verdict)}`,
    );
    assert.ok(rep.cells >= 10, `the agent matrix ran only ${rep.cells} cell(s)`);
    assert.deepEqual(rep.false_passes.map(falsePassLine), []);
    assert.equal(r.exitCode, 0, String(r.stderr));
  },
);
