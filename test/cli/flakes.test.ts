import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { memeval } from '../helpers.ts';
import {
  faultyTarget,
  rawReport,
  reportFromStdout,
  runInline,
  tempDir,
  timeLimit,
  type InlineConfig,
  type KitReport,
} from '../kit.ts';
import { scenarioDir } from '../faulty.ts';

type T = { after: (fn: () => void) => void };
const ENV = { NO_COLOR: '1', FORCE_COLOR: '0' };

/** A scenarios folder on one target, a cell at a time. */
const on = (scenarios: string, target: string, config: InlineConfig = {}) => ({
  scenarios,
  targets: [target],
  config: { workers: 1, ...config },
});

test(
  '--repeat N runs each deterministic cell N times, with repeat statistics per cell',
  { timeout: timeLimit(300_000) },
  async (t) => {
    const dir = tempDir(t);
    const target = faultyTarget(dir, 'faulty', 'ok');
    const sc = scenarioDir(dir, 1);
    const r = await runInline(t, { mode: 'cli', ...on(sc, target, { agent: { repeat: 3 } }) });
    assert.equal(r.exitCode, 0, r.output);
    const ids = r.report.results.map((c) => c.cell_id).sort();
    assert.deepEqual(ids, [
      's1/faulty/violation-1',
      's1/faulty/violation-2',
      's1/faulty/violation-3',
      's1/faulty/well-behaved-1',
      's1/faulty/well-behaved-2',
      's1/faulty/well-behaved-3',
    ]);
    assert.deepEqual(
      r.report.results
        .filter((c) => c.phase === 'well-behaved')
        .map((c) => c.repeat)
        .sort(),
      [1, 2, 3],
    );
    const wb = r.report.repeats?.find((s) => s.phase === 'well-behaved');
    assert.ok(wb, 'repeat statistics of the well-behaved cell');
    assert.equal(wb.runs, 3);
    assert.equal(wb.passed, 3);
    assert.equal(wb.pass_all, true);
    assert.match(r.stdout, /s1 \[faulty\] well-behaved\s+3\s+100%/);
    assert.match(r.stdout, /s1 \[faulty\] well-behaved #2/, 'each run of a cell is told apart as it ends');
    // N=1 keeps the ids baselines match on
    const one = await runInline(t, { mode: 'cli', ...on(sc, target) });
    assert.deepEqual(one.report.results.map((c) => c.cell_id).sort(), [
      's1/faulty/violation',
      's1/faulty/well-behaved',
    ]);
  },
);

/** s1 (one save per phase, well-behaved first) on the fault server in a `drop-first` mode, its counter in a folder of the test. */
function flakySetup(t: T, fault: string) {
  const dir = tempDir(t);
  const counters = tempDir(t, 'memeval-flaky-');
  const target = faultyTarget(dir, 'faulty', fault, {}, { FLAKY_DIR: counters });
  const sc = scenarioDir(dir, 1);
  return { target, sc };
}

const wbCell = (report: KitReport) => report.results.find((c) => c.cell_id === 's1/faulty/well-behaved')!;

const attemptsOf = (r: { attempts?: { verdict: string; cell_dir: string }[] }) =>
  (r.attempts ?? []).map((a) => a.verdict);

test(
  '--retries: a cell that fails, then passes on a retry, is flaky: counted and shown apart, never passed, exit 0 unless --fail-on flaky',
  { timeout: timeLimit(300_000) },
  async (t) => {
    const a = flakySetup(t, 'drop-first:1');
    const r = await runInline(t, {
      mode: 'cli',
      ...on(a.sc, a.target, { retries: 2, reporters: ['console', 'junit', 'markdown'] }),
    });
    assert.equal(r.exitCode, 0, r.output);
    const cell = wbCell(r.report);
    assert.equal(cell.cell_id, 's1/faulty/well-behaved');
    assert.equal(cell.verdict, 'flaky');
    assert.equal(cell.fails_run, false);
    assert.deepEqual(attemptsOf(cell), ['fail', 'pass']);
    const attempts = cell.attempts!;
    assert.notEqual(attempts[0].cell_dir, attempts[1].cell_dir);
    assert.match(attempts[0].reason, /dark mode once/);
    // the violation cell (its token saved, detected) is the one pass
    assert.deepEqual([r.report.summary.passed, r.report.summary.failed, r.report.summary.flaky], [1, 0, 1]);
    assert.match(r.stdout, /1 flaky cell\(s\) passed only on a retry/);
    assert.match(r.stdout, /1 passed, 0 failed, 1 flaky/);
    const runDir = r.runDir!;
    const junit = readFileSync(join(runDir, 'junit.xml'), 'utf8');
    assert.match(junit, /<flakyFailure message="[^"]*dark mode once/);
    assert.doesNotMatch(junit, /<failure/);
    const md = readFileSync(join(runDir, 'summary.md'), 'utf8');
    assert.match(md, /### Flaky cells/);
    assert.match(md, /1 passed, 0 failed, 1 flaky/);

    // rejudge recomputes one attempt's verdict: it must not turn the flaky cell into a pass
    const rj = await memeval(['rejudge', runDir, '--json'], { env: ENV, timeout: timeLimit(240_000) });
    assert.equal(rj.exitCode, 0, String(rj.stderr));
    const again = wbCell(reportFromStdout(rj)) as ReturnType<typeof wbCell> & { rejudge: { rejudged: boolean } };
    assert.deepEqual([again.verdict, again.rejudge.rejudged], ['flaky', false]);

    const b = flakySetup(t, 'drop-first:1');
    const strict = await runInline(t, {
      mode: 'cli',
      ...on(b.sc, b.target, { retries: 1, gate: { failOn: 'flaky' } }),
    });
    assert.equal(strict.exitCode, 1, strict.output);
    assert.equal(wbCell(strict.report).verdict, 'flaky');
    assert.equal(wbCell(strict.report).fails_run, true);
  },
);

test(
  '--retries: a cell whose retries all fail stays failing, and a retry that errors is not a pass',
  { timeout: timeLimit(300_000) },
  async (t) => {
    const a = flakySetup(t, 'drop-first:99');
    const r = await runInline(t, on(a.sc, a.target, { retries: 2 }));
    assert.equal(r.exitCode, 1, r.output);
    assert.equal(wbCell(r.report).verdict, 'fail');
    assert.deepEqual(attemptsOf(wbCell(r.report)), ['fail', 'fail', 'fail']);
    assert.deepEqual([r.report.summary.failed, r.report.summary.flaky], [1, 0]);

    const b = flakySetup(t, 'drop-first:1:crash');
    const e = await runInline(t, on(b.sc, b.target, { retries: 1 }));
    assert.equal(e.exitCode, 1, e.output);
    assert.equal(wbCell(e.report).verdict, 'fail');
    assert.deepEqual(attemptsOf(wbCell(e.report)), ['fail', 'error']);
  },
);

test(
  '--last-failed reruns only the cells that failed the latest run; nothing failed: says so and runs nothing; an unreadable or interrupted latest run is exit 3',
  { timeout: timeLimit(300_000) },
  async (t) => {
    const a = flakySetup(t, 'drop-first:1');
    const first = await runInline(t, { mode: 'cli', ...on(a.sc, a.target) });
    assert.equal(first.exitCode, 1, first.output);
    const out = first.out;
    const lastFailed = { mode: 'cli', ...on(a.sc, a.target, { lastFailed: true }), out } as const;
    const again = await runInline(t, lastFailed);
    assert.equal(again.exitCode, 0, again.output);
    assert.deepEqual(
      again.report.results.map((c) => [c.cell_id, c.verdict]),
      [['s1/faulty/well-behaved', 'pass']],
    );
    const dirs = readdirSync(out).length;
    const none = await runInline(t, lastFailed);
    assert.equal(none.exitCode, 0, none.output);
    assert.match(none.stdout, /no cell failed the run in the latest run .*; nothing to rerun/);
    assert.equal(readdirSync(out).length, dirs, 'nothing ran, so no run dir was written');

    const latest = join(out, readdirSync(out).sort().at(-1)!, 'report.json');
    writeFileSync(latest, JSON.stringify({ ...rawReport(latest), status: 'interrupted' }));
    const interrupted = await runInline(t, lastFailed);
    assert.equal(interrupted.exitCode, 3, interrupted.output);
    assert.match(interrupted.stderr, /--last-failed: the latest run .* is interrupted/);
    writeFileSync(latest, '{');
    const unreadable = await runInline(t, lastFailed);
    assert.equal(unreadable.exitCode, 3, unreadable.output);
    assert.match(unreadable.stderr, /--last-failed: the latest run .* cannot be read/);
  },
);

test(
  '--last-failed refuses (exit 3, naming what differs) when the latest run planned other scenarios or targets, even when none of its cells failed',
  { timeout: timeLimit(300_000) },
  async (t) => {
    const dir = tempDir(t);
    const target = faultyTarget(dir, 'faulty', 'ok');
    const one = scenarioDir(join(dir, 'one'), 1);
    const two = scenarioDir(join(dir, 'two'), 2);
    const first = await runInline(t, on(two, target));
    assert.equal(first.exitCode, 0, first.output);
    const out = first.out;
    const dirs = readdirSync(out).length;
    // the latest run planned s1 and s2; this one plans s1 only: it cannot say that s1 is all that needs rerunning
    const fewer = await runInline(t, { ...on(one, target, { lastFailed: true }), out });
    assert.equal(fewer.exitCode, 3, fewer.output);
    assert.match(
      fewer.output,
      /--last-failed: the latest run \S+ \(.*\) planned 4 cell\(s\), this run plans 2, and they are not the same cells: scenarios only in the latest run: s2\..*give the same --scenarios/,
    );
    assert.doesNotMatch(fewer.output, /nothing to rerun/);
    // another target: the latest run says nothing about this one's cells
    const other = faultyTarget(join(dir, 'one'), 'other', 'ok');
    const elsewhere = await runInline(t, { ...on(two, other, { lastFailed: true }), out });
    assert.equal(elsewhere.exitCode, 3, elsewhere.output);
    assert.match(elsewhere.output, /targets only in the latest run: faulty; targets only in this run: other/);
    // --repeat plans other cells of the same scenarios and targets
    const repeated = await runInline(t, { ...on(two, target, { lastFailed: true, agent: { repeat: 2 } }), out });
    assert.equal(repeated.exitCode, 3, repeated.output);
    assert.match(
      repeated.output,
      /cells only in the latest run: s1\/faulty\/violation, .*cells only in this run: s1\/faulty\/violation-1/,
    );
    assert.equal(readdirSync(out).length, dirs, 'nothing ran');
    // the same cells, none failed: nothing to rerun, exit 0
    const same = await runInline(t, { ...on(two, target, { lastFailed: true }), out });
    assert.equal(same.exitCode, 0, same.output);
    assert.match(same.output, /no cell failed the run in the latest run .*; nothing to rerun/);
    assert.equal(readdirSync(out).length, dirs, 'nothing ran');
  },
);
