/**
 * Ctrl-C during `memeval fuzz` stops the campaign the way it stops a run: the running case's
 * server is stopped and its fixture removed, the cases already run stay in the flag store, the
 * summary is printed, and memeval exits 130.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { FlagStore } from '../../src/fuzz/flags.ts';
import { FUZZ_SERVER, localDecl, writeDecl } from '../fuzz-helpers.ts';
import { fixtureProcesses, memeval, tempDir, timeLimit } from '../helpers.ts';

/** Resolves once `file` exists; rejects after `ms`. */
async function appears(file: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`${file} did not appear within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test(
  'Ctrl-C mid-campaign: the running case is stopped and its fixture removed, the flags and summary are written, exit 130',
  { timeout: timeLimit(180_000) },
  async (t) => {
    const dir = tempDir(t);
    const tmp = tempDir(t, 'memeval-fuzz-tmp-');
    const mark = join(dir, 'mark');
    mkdirSync(mark);
    const decl = localDecl('stalls', 'hang-at', { call_timeout_ms: 120_000 });
    // exact-duplicate saves three times a case: the 4th save is the second case's first
    Object.assign(decl.server.env, { FUZZ_MARK: mark, FUZZ_HANG_AT: '4' });
    const db = join(dir, 'flags.db');
    // a server a failing run leaves behind must not outlive the test
    t.after(() => {
      for (const pid of fixtureProcesses(tmp)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
    });
    const child = memeval(
      [
        'fuzz',
        '--target',
        writeDecl(dir, decl),
        '--recipe',
        'exact-duplicate',
        '--budget',
        '3',
        '--seed',
        'int',
        '--flags',
        db,
        '--out',
        join(dir, 'out'),
        '--json',
      ],
      {
        env: { NO_COLOR: '1', TMPDIR: tmp },
        timeout: timeLimit(150_000),
      },
    );
    // the first case ran; the second case's server now hangs on a save
    await appears(join(mark, 'hanging'), timeLimit(90_000));
    assert.equal(fixtureProcesses(tmp, FUZZ_SERVER).length, 1, "the second case's server is running");
    child.kill('SIGINT');
    const r = await child;
    assert.equal(r.exitCode, 130, String(r.stderr));
    assert.deepEqual(
      readdirSync(tmp).filter((f) => f.startsWith('memeval-')),
      [],
      "the running case's fixture was removed",
    );
    assert.deepEqual(fixtureProcesses(tmp), [], 'no process of a fixture outlived the campaign');
    assert.match(String(r.stderr), /^\[1\/3\] stalls exact-duplicate \S+ .* ok$/m, 'the first case finished');
    assert.match(String(r.stderr), /interrupted/);
    const summary = JSON.parse(String(r.stdout));
    assert.equal(summary.flags, db);
    assert.equal(summary.targets[0].target, 'stalls');
    const store = new FlagStore(db);
    try {
      assert.equal(store.seen('stalls').length, 1, 'the case that finished is in the flag store');
    } finally {
      store.close();
    }
  },
);
