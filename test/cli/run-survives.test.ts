import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { catchesSighup, fixtureProcesses, memeval, tempDir, timeLimit, until } from '../helpers.ts';
import { FAULTY, faultyTarget, scenarioDir } from '../faulty.ts';

type T = { after: (fn: () => void) => void };
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

function setup(t: T, fault: string, n = 4, over: Record<string, unknown> = {}, env: Record<string, string> = {}) {
  const dir = tempDir(t);
  const out = tempDir(t);
  const tmp = tempDir(t);
  const sc = scenarioDir(dir, n, over);
  const target = faultyTarget(dir, 'faulty', fault, { call_timeout_ms: 60000 }, env);
  return { dir, out, tmp, sc, target };
}

/** The run-level promise: a parseable report, no fixture, no process, a documented exit code. */
function assertClean(r: { exitCode?: number; signal?: string; stderr: unknown }, out: string, tmp: string, code = 130) {
  assert.equal(r.signal, undefined, `memeval died by ${r.signal}`);
  assert.equal(r.exitCode, code, String(r.stderr).slice(-800));
  assert.doesNotMatch(String(r.stderr), /\n\s+at .*:\d+:\d+/, 'no stack trace');
  assert.deepEqual(
    readdirSync(tmp).filter((f) => f.startsWith('memeval-')),
    [],
    'fixtures removed',
  );
  assert.deepEqual(fixtureProcesses(tmp), [], 'no process of a fixture outlived the run');
  const runs = readdirSync(out);
  if (!runs.length) return undefined;
  return JSON.parse(readFileSync(join(out, runs[0], 'report.json'), 'utf8'));
}

for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
  test(`${sig} while memeval is still loading ends it with 130 before anything runs, not by signal`, async (t) => {
    const c = setup(t, 'ok');
    const child = memeval(['run', '--scenarios', c.sc, '--target', c.target, '--out', c.out], {
      env: { NO_COLOR: '1', TMPDIR: c.tmp },
      timeout: timeLimit(60_000),
    });
    // the entry's first statement installs the handlers; the rest of memeval takes seconds more to load
    await until('the entry to run', () => catchesSighup(child.pid!));
    child.kill(sig);
    const r = await child;
    assertClean(r, c.out, c.tmp);
    assert.deepEqual(readdirSync(c.out), [], 'nothing ran');
  });

for (const sig of ['SIGTERM', 'SIGHUP'] as const)
  test(`${sig} mid-run behaves like Ctrl-C: report marked interrupted, fixtures removed, servers gone`, async (t) => {
    const c = setup(t, 'slow-recall', 4, {
      assertions: [{ kind: 'recall', name: 'recalls dark mode', phase: 'both', query: 'dark', contains: 'dark mode' }],
    });
    const child = memeval(['run', '--scenarios', c.sc, '--target', c.target, '--out', c.out, '--workers', '2'], {
      env: { NO_COLOR: '1', TMPDIR: c.tmp },
      timeout: timeLimit(60_000),
    });
    await until('two servers', () => fixtureProcesses(c.tmp, FAULTY).length >= 2);
    child.kill(sig);
    const report = assertClean(await child, c.out, c.tmp);
    assert.equal(report.status, 'interrupted');
  });

test('an interrupt while the driver stops its server starts no new server for the recall probe', async (t) => {
  const dir = tempDir(t);
  const exits = join(dir, 'exits.log');
  const searches = join(dir, 'searches.log');
  const c = setup(
    t,
    'slow-exit',
    2,
    {
      assertions: [{ kind: 'recall', name: 'recalls dark mode', phase: 'both', query: 'dark', contains: 'dark mode' }],
    },
    { EXIT_LOG: exits, SEARCH_LOG: searches },
  );
  const child = memeval(['run', '--scenarios', c.sc, '--target', c.target, '--out', c.out, '--workers', '2'], {
    env: { NO_COLOR: '1', TMPDIR: c.tmp },
    timeout: timeLimit(120_000),
    forceKillAfterDelay: false,
  });
  // a worker is stopping the driver's server, which takes its time to exit; no probe has searched
  // yet (a cell's probe starts only after its driver's server is gone)
  await until('a slow exit', () => existsSync(exits));
  child.kill('SIGTERM');
  const report = assertClean(await child, c.out, c.tmp);
  assert.equal(report.status, 'interrupted');
  // a probe server started after the interrupt would search, and wait on it for its call timeout
  assert.equal(existsSync(searches), false, 'no recall probe ran after the interrupt');
});

test('a second Ctrl-C quits at once, and still writes the report, removes fixtures and kills servers', async (t) => {
  const c = setup(t, 'slow-recall', 4, {
    assertions: [{ kind: 'recall', name: 'recalls dark mode', phase: 'both', query: 'dark', contains: 'dark mode' }],
  });
  const child = memeval(['run', '--scenarios', c.sc, '--target', c.target, '--out', c.out, '--workers', '2'], {
    env: { NO_COLOR: '1', TMPDIR: c.tmp },
    timeout: timeLimit(60_000),
  });
  await until('two servers', () => fixtureProcesses(c.tmp, FAULTY).length >= 2);
  child.kill('SIGINT');
  await wait(30);
  child.kill('SIGINT');
  const report = assertClean(await child, c.out, c.tmp);
  assert.ok(report, 'a report was written');
  assert.equal(report.status, 'interrupted');
  assert.equal(report.results.length, 8, 'every planned cell is in the report');
});

test('an interrupt during the recall probe makes that cell skipped, not error', async (t) => {
  const dir = tempDir(t);
  const searches = join(dir, 'searches.log');
  const c = setup(
    t,
    'slow-recall',
    1,
    {
      assertions: [
        { kind: 'count', name: 'dark mode once', phase: 'both', contains: 'dark mode', op: 'eq', value: 1 },
        { kind: 'recall', name: 'recalls dark mode', phase: 'well-behaved', query: 'dark', contains: 'dark mode' },
      ],
    },
    { SEARCH_LOG: searches },
  );
  const child = memeval(
    ['run', '--scenarios', c.sc, '--target', c.target, '--out', c.out, '--workers', '1', '--json'],
    { env: { NO_COLOR: '1', TMPDIR: c.tmp }, timeout: timeLimit(60_000) },
  );
  await until('the recall probe', () => existsSync(searches));
  child.kill('SIGINT');
  const report = assertClean(await child, c.out, c.tmp);
  const wb = report.results.find((x: { phase: string }) => x.phase === 'well-behaved');
  assert.equal(wb.verdict, 'skipped', wb.reason);
});

test('`memeval run | head -1`: a closed stdout does not kill the run', async (t) => {
  const c = setup(t, 'ok', 2);
  const child = memeval(['run', '--scenarios', c.sc, '--target', c.target, '--out', c.out, '--workers', '1'], {
    env: { NO_COLOR: '1', TMPDIR: c.tmp },
    timeout: timeLimit(60_000),
    buffer: false,
  });
  child.stdout!.once('data', () => child.stdout!.destroy());
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const r = await child;
  const report = assertClean({ exitCode: r.exitCode, signal: r.signal, stderr }, c.out, c.tmp, 0);
  assert.equal(report.status, 'completed');
  assert.doesNotMatch(stderr, /EPIPE/);
});

/** A tmpfs of `size` mounted for the test (we run as root), optionally read-only. */
function tmpfs(t: T, size: string, ro = false): string {
  const dir = mkdtempSync(join(tmpdir(), 'memeval-mnt-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}${ro ? ',ro' : ''}`, 'tmpfs', dir]);
  t.after(() => {
    execFileSync('umount', ['-l', dir]);
    rmdirSync(dir);
  });
  return dir;
}

test('--out read-only or nearly full: exit 3 before anything runs', async (t) => {
  const c = setup(t, 'ok', 1);
  const ro = tmpfs(t, '64m', true);
  let r = await memeval(['run', '--scenarios', c.sc, '--target', c.target, '--out', ro], {
    env: { NO_COLOR: '1', TMPDIR: c.tmp },
  });
  assert.equal(r.exitCode, 3, String(r.stderr));
  assert.match(String(r.stderr), /--out: .* is not writable \(EROFS\)/);
  const full = tmpfs(t, '1m');
  r = await memeval(['run', '--scenarios', c.sc, '--target', c.target, '--out', full], {
    env: { NO_COLOR: '1', TMPDIR: c.tmp },
  });
  assert.equal(r.exitCode, 3, String(r.stderr));
  assert.match(String(r.stderr), /--out: only \d+ KiB free/);
  assert.doesNotMatch(String(r.stderr), /\n\s+at /);
});

// in-process: the CLI under tsx cannot start at all with a bad TMPDIR (tsx keeps its cache there)
test('a TMPDIR that does not exist or is read-only is refused before anything runs', async (t) => {
  const { checkRunDirs } = await import('../../src/app/prechecks.ts');
  const out = tempDir(t);
  const ro = tmpfs(t, '64m', true);
  const saved = process.env.TMPDIR;
  const restore = () => (saved === undefined ? delete process.env.TMPDIR : (process.env.TMPDIR = saved));
  try {
    process.env.TMPDIR = join(out, 'missing');
    assert.throws(() => checkRunDirs(out), /TMPDIR: .*missing does not exist \(ENOENT\)/);
    process.env.TMPDIR = ro;
    assert.throws(() => checkRunDirs(out), /TMPDIR: .* is not writable \(EROFS\)/);
  } finally {
    restore();
  }
  assert.doesNotThrow(() => checkRunDirs(out));
});

test('the disk fills mid-run: cells and the run end as errors that say where the partial run is, nothing left behind', async (t) => {
  const c = setup(t, 'big:6000000', 2);
  const out = tmpfs(t, '20m');
  mkdirSync(join(out, 'runs'));
  const r = await memeval(
    ['run', '--scenarios', c.sc, '--target', c.target, '--out', join(out, 'runs'), '--workers', '1'],
    { env: { NO_COLOR: '1', TMPDIR: c.tmp }, timeout: timeLimit(120_000) },
  );
  assertClean(r, tempDir(t), c.tmp, 1);
  const err = String(r.stderr);
  const runs = readdirSync(join(out, 'runs'));
  assert.equal(runs.length, 1);
  const reportFile = join(out, 'runs', runs[0], 'report.json');
  if (existsSync(reportFile)) {
    const report = JSON.parse(readFileSync(reportFile, 'utf8'));
    assert.ok(
      report.results.some((x: { verdict: string; reason: string }) => x.verdict === 'error' && /ENOSPC/.test(x.reason)),
      'a cell names ENOSPC',
    );
  } else assert.match(err, /run error: cannot write the run's report in .* \(ENOSPC\).*partial run .* is in /);
});
