import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { memeval, tempDir, timeLimit } from '../helpers.ts';
import { faultyTarget, scenarioDir } from '../faulty.ts';

type T = { after: (fn: () => void) => void };
const ENV = { NO_COLOR: '1', FORCE_COLOR: '0' };

async function run(t: T, args: string[], out = tempDir(t, 'memeval-run-')) {
  const r = await memeval(['run', '--out', out, '--workers', '1', ...args], { env: ENV, timeout: timeLimit(240_000) });
  const runs = readdirSync(out).sort();
  const runDir = runs.length ? join(out, runs[runs.length - 1]) : '';
  // a test may leave the latest report unreadable on purpose
  let report;
  try {
    report = runs.length ? JSON.parse(readFileSync(join(runDir, 'report.json'), 'utf8')) : undefined;
  } catch {
    report = undefined;
  }
  return { exitCode: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr), report, out };
}

test(
  '--repeat N runs each deterministic cell N times, with repeat statistics per cell',
  { timeout: timeLimit(300_000) },
  async (t) => {
    const dir = tempDir(t);
    const target = faultyTarget(dir, 'faulty', 'ok');
    const sc = scenarioDir(dir, 1);
    const r = await run(t, ['--scenarios', sc, '--target', target, '--repeat', '3']);
    assert.equal(r.exitCode, 0, r.stdout + r.stderr);
    const ids = r.report.results.map((c: { cell_id: string }) => c.cell_id).sort();
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
        .filter((c: { phase: string }) => c.phase === 'well-behaved')
        .map((c: { repeat: number }) => c.repeat)
        .sort(),
      [1, 2, 3],
    );
    const wb = r.report.repeats.find((s: { phase: string }) => s.phase === 'well-behaved');
    assert.equal(wb.runs, 3);
    assert.equal(wb.passed, 3);
    assert.equal(wb.pass_all, true);
    assert.match(r.stdout, /s1 \[faulty\] well-behaved\s+3\s+100%/);
    assert.match(r.stdout, /s1 \[faulty\] well-behaved #2/, 'each run of a cell is told apart as it ends');
    // N=1 keeps the ids baselines match on
    const one = await run(t, ['--scenarios', sc, '--target', target]);
    assert.deepEqual(one.report.results.map((c: { cell_id: string }) => c.cell_id).sort(), [
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

const wbCell = (report: { results: { cell_id: string }[] }) =>
  report.results.find((c) => c.cell_id === 's1/faulty/well-behaved') as Record<string, any>;

const attemptsOf = (r: { attempts?: { verdict: string; cell_dir: string }[] }) =>
  (r.attempts ?? []).map((a) => a.verdict);

test(
  '--retries: a cell that fails, then passes on a retry, is flaky: counted and shown apart, never passed, exit 0 unless --fail-on flaky',
  { timeout: timeLimit(300_000) },
  async (t) => {
    const a = flakySetup(t, 'drop-first:1');
    const r = await run(t, [
      '--scenarios',
      a.sc,
      '--target',
      a.target,
      '--retries',
      '2',
      '--reporter',
      'console,junit,markdown',
    ]);
    assert.equal(r.exitCode, 0, r.stdout + r.stderr);
    const cell = wbCell(r.report);
    assert.equal(cell.cell_id, 's1/faulty/well-behaved');
    assert.equal(cell.verdict, 'flaky');
    assert.equal(cell.fails_run, false);
    assert.deepEqual(attemptsOf(cell), ['fail', 'pass']);
    assert.notEqual(cell.attempts[0].cell_dir, cell.attempts[1].cell_dir);
    assert.match(cell.attempts[0].reason, /dark mode once/);
    // the violation cell (its token saved, detected) is the one pass
    assert.deepEqual([r.report.summary.passed, r.report.summary.failed, r.report.summary.flaky], [1, 0, 1]);
    assert.match(r.stdout, /1 flaky cell\(s\) passed only on a retry/);
    assert.match(r.stdout, /1 passed, 0 failed, 1 flaky/);
    const runDir = join(r.out, readdirSync(r.out)[0]);
    const junit = readFileSync(join(runDir, 'junit.xml'), 'utf8');
    assert.match(junit, /<flakyFailure message="[^"]*dark mode once/);
    assert.doesNotMatch(junit, /<failure/);
    const md = readFileSync(join(runDir, 'summary.md'), 'utf8');
    assert.match(md, /### Flaky cells/);
    assert.match(md, /1 passed, 0 failed, 1 flaky/);

    // rejudge recomputes one attempt's verdict: it must not turn the flaky cell into a pass
    const rj = await memeval(['rejudge', runDir, '--json'], { env: ENV, timeout: timeLimit(240_000) });
    assert.equal(rj.exitCode, 0, String(rj.stderr));
    const again = wbCell(JSON.parse(String(rj.stdout)));
    assert.deepEqual([again.verdict, again.rejudge.rejudged], ['flaky', false]);

    const b = flakySetup(t, 'drop-first:1');
    const strict = await run(t, ['--scenarios', b.sc, '--target', b.target, '--retries', '1', '--fail-on', 'flaky']);
    assert.equal(strict.exitCode, 1, strict.stdout + strict.stderr);
    assert.equal(wbCell(strict.report).verdict, 'flaky');
    assert.equal(wbCell(strict.report).fails_run, true);
  },
);

test(
  '--retries: a cell whose retries all fail stays failing, and a retry that errors is not a pass',
  { timeout: timeLimit(300_000) },
  async (t) => {
    const a = flakySetup(t, 'drop-first:99');
    const r = await run(t, ['--scenarios', a.sc, '--target', a.target, '--retries', '2']);
    assert.equal(r.exitCode, 1, r.stdout + r.stderr);
    assert.equal(wbCell(r.report).verdict, 'fail');
    assert.deepEqual(attemptsOf(wbCell(r.report)), ['fail', 'fail', 'fail']);
    assert.deepEqual([r.report.summary.failed, r.report.summary.flaky], [1, 0]);

    const b = flakySetup(t, 'drop-first:1:crash');
    const e = await run(t, ['--scenarios', b.sc, '--target', b.target, '--retries', '1']);
    assert.equal(e.exitCode, 1, e.stdout + e.stderr);
    assert.equal(wbCell(e.report).verdict, 'fail');
    assert.deepEqual(attemptsOf(wbCell(e.report)), ['fail', 'error']);
  },
);

test(
  '--last-failed reruns only the cells that failed the latest run; nothing failed: says so and runs nothing; an unreadable or interrupted latest run is exit 3',
  { timeout: timeLimit(300_000) },
  async (t) => {
    const a = flakySetup(t, 'drop-first:1');
    const args = ['--scenarios', a.sc, '--target', a.target];
    const first = await run(t, args);
    assert.equal(first.exitCode, 1, first.stdout + first.stderr);
    const out = first.out;
    const again = await run(t, [...args, '--last-failed'], out);
    assert.equal(again.exitCode, 0, again.stdout + again.stderr);
    assert.deepEqual(
      again.report.results.map((c: { cell_id: string; verdict: string }) => [c.cell_id, c.verdict]),
      [['s1/faulty/well-behaved', 'pass']],
    );
    const dirs = readdirSync(out).length;
    const none = await run(t, [...args, '--last-failed'], out);
    assert.equal(none.exitCode, 0, none.stdout + none.stderr);
    assert.match(none.stdout, /no cell failed the run in the latest run .*; nothing to rerun/);
    assert.equal(readdirSync(out).length, dirs, 'nothing ran, so no run dir was written');

    const latest = join(out, readdirSync(out).sort().at(-1)!, 'report.json');
    const report = JSON.parse(readFileSync(latest, 'utf8'));
    writeFileSync(latest, JSON.stringify({ ...report, status: 'interrupted' }));
    const interrupted = await run(t, [...args, '--last-failed'], out);
    assert.equal(interrupted.exitCode, 3, interrupted.stdout + interrupted.stderr);
    assert.match(interrupted.stderr, /--last-failed: the latest run .* is interrupted/);
    writeFileSync(latest, '{');
    const unreadable = await run(t, [...args, '--last-failed'], out);
    assert.equal(unreadable.exitCode, 3, unreadable.stdout + unreadable.stderr);
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
    const first = await run(t, ['--scenarios', two, '--target', target]);
    assert.equal(first.exitCode, 0, first.stdout + first.stderr);
    const out = first.out;
    const dirs = readdirSync(out).length;
    // the latest run planned s1 and s2; this one plans s1 only: it cannot say that s1 is all that needs rerunning
    const fewer = await run(t, ['--scenarios', one, '--target', target, '--last-failed'], out);
    assert.equal(fewer.exitCode, 3, fewer.stdout + fewer.stderr);
    assert.match(
      fewer.stderr,
      /--last-failed: the latest run \S+ \(.*\) planned 4 cell\(s\), this run plans 2, and they are not the same cells: scenarios only in the latest run: s2\..*give the same --scenarios/,
    );
    assert.doesNotMatch(fewer.stdout, /nothing to rerun/);
    // another target: the latest run says nothing about this one's cells
    const other = faultyTarget(join(dir, 'one'), 'other', 'ok');
    const elsewhere = await run(t, ['--scenarios', two, '--target', other, '--last-failed'], out);
    assert.equal(elsewhere.exitCode, 3, elsewhere.stdout + elsewhere.stderr);
    assert.match(elsewhere.stderr, /targets only in the latest run: faulty; targets only in this run: other/);
    // --repeat plans other cells of the same scenarios and targets
    const repeated = await run(t, ['--scenarios', two, '--target', target, '--repeat', '2', '--last-failed'], out);
    assert.equal(repeated.exitCode, 3, repeated.stdout + repeated.stderr);
    assert.match(
      repeated.stderr,
      /cells only in the latest run: s1\/faulty\/violation, .*cells only in this run: s1\/faulty\/violation-1/,
    );
    assert.equal(readdirSync(out).length, dirs, 'nothing ran');
    // the same cells, none failed: nothing to rerun, exit 0
    const same = await run(t, ['--scenarios', two, '--target', target, '--last-failed'], out);
    assert.equal(same.exitCode, 0, same.stdout + same.stderr);
    assert.match(same.stdout, /no cell failed the run in the latest run .*; nothing to rerun/);
    assert.equal(readdirSync(out).length, dirs, 'nothing ran');
  },
);
