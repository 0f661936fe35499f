import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copies, faultyDecl, runInline, timeLimit, type Decl } from '../kit.ts';

// Patterns with no nested repeat pass the load-time check, yet take hours on a long enough text:
// each `.*` multiplies the ways to split it.
const SLOW = (n: number) => `${'.*'.repeat(n)}!`;
// read once per process (the judge process's too): the kit's CLI mode, a run of its own
const env = { MEMEVAL_REGEX_TIMEOUT_MS: '300' };

function target(fault: string, extra: Decl): Decl {
  const decl = faultyDecl('faulty', fault);
  return { ...decl, ...extra, ops: { ...(decl.ops as object), ...(extra.ops as object) } };
}

/** A run through the CLI that must end by itself, well inside the spawn's time limit. */
async function run(t: { after: (fn: () => void) => void }, scenarios: Decl[], decl: Decl) {
  const r = await runInline(t, {
    mode: 'cli',
    scenarios,
    targets: [decl],
    env,
    spawn: { timeout: timeLimit(120_000) },
  });
  assert.notEqual(r.exitCode, -1, `memeval finished:\n${r.output.slice(-500)}`);
  return r;
}

test("a capture_id that backtracks for hours on a target's result ends the cell as error, and the run goes on", async (t) => {
  const decl = target('big:3000', {
    ops: { remember: [{ tool: 'save', args: { text: '{{content}}' }, capture_id: `^saved${SLOW(7)}` }] },
  });
  const r = await run(t, copies(2), decl);
  assert.equal(r.exitCode, 1, r.stderr.slice(-500));
  const { report } = r;
  assert.equal(report.results.length, 4, 'every cell ran');
  for (const c of report.results) {
    assert.equal(c.verdict, 'error', c.cell_id);
    assert.match(c.reason, /capture_id \/.*\/ timed out after 300 ms on 3006 characters/);
  }
});

test('a recall_results.regex that backtracks for hours on a search result ends the cell as error', async (t) => {
  const decl = target('ok', { recall_results: { regex: SLOW(14) } });
  // both phases store a long memory the search finds: a short result ("nothing found") can finish in time
  const long = `User prefers dark mode${' in every editor'.repeat(8)}`;
  const sc = copies(1, {
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
  const r = await run(t, sc, decl);
  assert.equal(r.exitCode, 1, r.stderr.slice(-500));
  const { report } = r;
  const judged = report.results.flatMap((c) => c.assertions);
  assert.ok(judged.length > 0);
  for (const a of judged.filter((x) => x.name === 'recalls dark mode')) {
    assert.equal(a.outcome, 'error');
    assert.match(a.detail ?? '', /recall_results\.regex \/.*\/ timed out after 300 ms/);
  }
  assert.ok(
    report.results.every((c) => c.verdict === 'error'),
    'no cell passes on a recall nobody could read',
  );
});

test("a file judge's regex that backtracks for hours is an error judgment, not a hang", async (t) => {
  const decl = target('ok', {});
  const sc = copies(1, {
    setup: { files: [{ path: 'notes.txt', content: 'x'.repeat(3000) }] },
    assertions: [
      { kind: 'file', name: 'notes end with a bang', phase: 'both', path: 'notes.txt', exists: true, regex: SLOW(7) },
    ],
  });
  const r = await run(t, sc, decl);
  assert.equal(r.exitCode, 1, r.stderr.slice(-500));
  const { report } = r;
  for (const c of report.results) {
    assert.equal(c.verdict, 'error', c.cell_id);
    assert.match(
      c.assertions[0].detail ?? '',
      /judge timed out: regex \/.*\/ timed out after 300 ms on 3000 characters/,
    );
  }
});
