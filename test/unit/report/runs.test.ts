import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { latestRunDir, listRuns, pruneRuns } from '../../../src/report/runs.js';
import { liveness, markLive } from '../../../src/util/live-run.js';
import { tempDir } from '../../helpers.js';

function output(root: string, name: string, file?: [string, unknown]): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  if (file) writeFileSync(join(dir, file[0]), JSON.stringify(file[1]));
  return dir;
}

/** A pid that no process has now: a child that already exited. */
function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString());
}

test('runs list: rejudge, calibrate and fuzz outputs are listed with their kind, in start-time order', (t) => {
  const root = tempDir(t);
  output(root, '2026-01-02T00-00-00Z-aaaaaa', [
    'report.json',
    { status: 'completed', summary: { cells: 2, failed: 0 } },
  ]);
  output(root, 'rejudge-2026-01-03T00-00-00Z-bbbbbb', ['report.json', { status: 'completed' }]);
  output(root, 'calibrate-2026-01-01T00-00-00Z-cccccc', ['calibration.json', { status: 'completed' }]);
  output(root, 'fuzz-2026-01-04T00-00-00-000Z');
  output(root, 'not-a-run');
  const list = listRuns(root);
  assert.deepEqual(
    list.map((r) => [r.kind, r.status]),
    [
      ['calibrate', 'completed'],
      ['run', 'completed'],
      ['rejudge', 'completed'],
      ['fuzz', null],
    ],
  );
  // `view` and `sql` default to the newest run, not to a rejudge or fuzz output
  assert.equal(latestRunDir(root), join(root, '2026-01-02T00-00-00Z-aaaaaa'));
});

test('runs prune: removes the oldest outputs of every kind, but never one a live process is writing', (t) => {
  const root = tempDir(t);
  const liveRun = output(root, '2026-01-01T00-00-00Z-live00');
  const unmark = markLive(liveRun);
  t.after(unmark);
  const dead = output(root, '2026-01-02T00-00-00Z-dead00');
  writeFileSync(join(dead, '.running'), JSON.stringify({ pid: deadPid() }));
  const torn = output(root, '2026-01-03T00-00-00Z-torn00');
  writeFileSync(join(torn, '.running'), '{"pi');
  output(root, 'rejudge-2026-01-04T00-00-00Z-aaaaaa', ['report.json', { status: 'completed' }]);
  output(root, '2026-01-05T00-00-00Z-newest', ['report.json', { status: 'completed' }]);

  assert.equal(liveness(liveRun).live, true);
  assert.equal(liveness(dead).live, false, 'a marker naming a dead pid: the run was cut off');
  const { removed, kept } = pruneRuns(root, 1);
  assert.deepEqual(
    removed.map((r) => r.run_id),
    ['2026-01-02T00-00-00Z-dead00', 'rejudge-2026-01-04T00-00-00Z-aaaaaa'],
  );
  assert.deepEqual(
    kept.map((r) => [r.run_id, r.running_why?.replace(/pid \d+/, 'pid N')]),
    [
      ['2026-01-01T00-00-00Z-live00', 'still being written by pid N'],
      [
        '2026-01-03T00-00-00Z-torn00',
        `.running cannot be read; delete ${join(torn, '.running')} if no memeval is writing this run`,
      ],
    ],
  );
  assert.ok(existsSync(liveRun) && existsSync(torn) && !existsSync(dead));
});

test('markLive: the marker goes when the writer is done, and a folder it made that stayed empty goes too', (t) => {
  const root = tempDir(t);
  const empty = join(root, 'fuzz-x');
  markLive(empty)();
  assert.equal(existsSync(empty), false);
  const used = join(root, 'run');
  const unmark = markLive(used);
  writeFileSync(join(used, 'report.json'), '{}');
  unmark();
  assert.equal(existsSync(join(used, '.running')), false);
  assert.equal(existsSync(join(used, 'report.json')), true);
});

test('route 7: of two runs started in the same second, the latest is the one that started later (started_at, to the ms), whatever their random suffixes', (t) => {
  const root = tempDir(t);
  // the suffix sorts the other way: by name, zzzzzz would be "latest"
  const later = output(root, '2026-01-02T00-00-00Z-aaaaaa', [
    'report.json',
    { status: 'completed', started_at: '2026-01-02T00:00:00.900Z' },
  ]);
  output(root, '2026-01-02T00-00-00Z-zzzzzz', [
    'report.json',
    { status: 'completed', started_at: '2026-01-02T00:00:00.100Z' },
  ]);
  assert.equal(latestRunDir(root), later);
  // one still running (or cut off) has no report yet: its live.json says when it started
  const running = output(root, '2026-01-02T00-00-00Z-000000', [
    'live.json',
    { started_at: '2026-01-02T00:00:00.950Z' },
  ]);
  assert.deepEqual(
    listRuns(root).map((r) => r.dir),
    [join(root, '2026-01-02T00-00-00Z-zzzzzz'), later, running],
  );
  // an older report without started_at still sorts by the second its name holds
  output(root, '2026-01-01T00-00-00Z-ffffff', ['report.json', { status: 'completed' }]);
  assert.equal(listRuns(root)[0].run_id, '2026-01-01T00-00-00Z-ffffff');
});

test('runs list: each run says its layer, targets and agent, from its report or (still running) its live.json', (t) => {
  const root = tempDir(t);
  output(root, '2026-01-02T00-00-00Z-aaaaaa', [
    'report.json',
    {
      status: 'completed',
      layer: 'real-model',
      targets: [{ name: 'server-memory' }, { name: 'mem0' }],
      options: { agent: 'claude' },
      summary: { cells: 2, failed: 0 },
    },
  ]);
  output(root, '2026-01-03T00-00-00Z-bbbbbb', [
    'live.json',
    { started_at: '2026-01-03T00:00:00.000Z', layer: 'deterministic', targets: [{ name: 'sqlite-mem' }], options: {} },
  ]);
  output(root, 'fuzz-2026-01-04T00-00-00-000Z');
  assert.deepEqual(
    listRuns(root).map((r) => [r.layer, r.targets, r.agent]),
    [
      ['real-model', ['server-memory', 'mem0'], 'claude'],
      ['deterministic', ['sqlite-mem'], null],
      [null, null, null],
    ],
  );
});
