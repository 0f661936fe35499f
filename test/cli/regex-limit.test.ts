import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { memeval, tempDir, writeJson, timeLimit } from '../helpers.ts';
import { faultyTarget, scenarioDir } from '../faulty.ts';

// Patterns with no nested repeat pass the load-time check, yet take hours on a long enough text:
// each `.*` multiplies the ways to split it.
const SLOW = (n: number) => `${'.*'.repeat(n)}!`;
const env = { NO_COLOR: '1', MEMEVAL_REGEX_TIMEOUT_MS: '300' };

function target(dir: string, fault: string, extra: Record<string, unknown>): string {
  const file = faultyTarget(dir, 'faulty', fault);
  const decl = JSON.parse(readFileSync(file, 'utf8'));
  return writeJson(file, { ...decl, ...extra, ops: { ...decl.ops, ...(extra.ops as object) } });
}

test("a capture_id that backtracks for hours on a target's result ends the cell as error, and the run goes on", async (t) => {
  const dir = tempDir(t);
  const out = tempDir(t);
  const file = target(dir, 'big:3000', {
    ops: { remember: [{ tool: 'save', args: { text: '{{content}}' }, capture_id: `^saved${SLOW(7)}` }] },
  });
  const r = await memeval(['run', '--scenarios', scenarioDir(dir, 2), '--target', file, '--out', out, '--json'], {
    env,
    timeout: timeLimit(120_000),
  });
  assert.equal(r.timedOut, false, 'memeval finished');
  assert.equal(r.exitCode, 1, String(r.stderr).slice(-500));
  const report = JSON.parse(String(r.stdout));
  assert.equal(report.results.length, 4, 'every cell ran');
  for (const c of report.results) {
    assert.equal(c.verdict, 'error', c.cell_id);
    assert.match(c.reason, /capture_id \/.*\/ timed out after 300 ms on 3006 characters/);
  }
});

test('a recall_results.regex that backtracks for hours on a search result ends the cell as error', async (t) => {
  const dir = tempDir(t);
  const out = tempDir(t);
  const file = target(dir, 'ok', { recall_results: { regex: SLOW(14) } });
  // both phases store a long memory the search finds: a short result ("nothing found") can finish in time
  const long = `User prefers dark mode${' in every editor'.repeat(8)}`;
  const sc = scenarioDir(dir, 1, {
    deterministic: {
      well_behaved: [{ op: 'remember', content: long }],
      violation: {
        expectation: 'detect',
        steps: [
          { op: 'remember', content: long },
          { op: 'remember', content: 'token sk_test_abcdef123456' },
        ],
      },
    },
    assertions: [{ kind: 'recall', name: 'recalls dark mode', phase: 'both', query: 'dark', contains: 'dark mode' }],
  });
  const r = await memeval(['run', '--scenarios', sc, '--target', file, '--out', out, '--json'], {
    env,
    timeout: timeLimit(120_000),
  });
  assert.equal(r.timedOut, false, 'memeval finished');
  const report = JSON.parse(String(r.stdout));
  const judged = report.results.flatMap(
    (c: { assertions: { name: string; outcome: string; detail: string }[] }) => c.assertions,
  );
  assert.ok(judged.length > 0);
  for (const a of judged.filter((x: { name: string }) => x.name === 'recalls dark mode')) {
    assert.equal(a.outcome, 'error');
    assert.match(a.detail, /recall_results\.regex \/.*\/ timed out after 300 ms/);
  }
  assert.ok(
    report.results.every((c: { verdict: string }) => c.verdict === 'error'),
    'no cell passes on a recall nobody could read',
  );
});

test("a file judge's regex that backtracks for hours is an error judgment, not a hang", async (t) => {
  const dir = tempDir(t);
  const out = tempDir(t);
  const file = target(dir, 'ok', {});
  const sc = scenarioDir(dir, 1, {
    setup: { files: [{ path: 'notes.txt', content: 'x'.repeat(3000) }] },
    assertions: [
      { kind: 'file', name: 'notes end with a bang', phase: 'both', path: 'notes.txt', exists: true, regex: SLOW(7) },
    ],
  });
  const r = await memeval(['run', '--scenarios', sc, '--target', file, '--out', out, '--json'], {
    env,
    timeout: timeLimit(120_000),
  });
  assert.equal(r.timedOut, false, 'memeval finished');
  const report = JSON.parse(String(r.stdout));
  for (const c of report.results) {
    assert.equal(c.verdict, 'error', c.cell_id);
    assert.match(c.assertions[0].detail, /judge timed out: regex \/.*\/ timed out after 300 ms on 3000 characters/);
  }
});
