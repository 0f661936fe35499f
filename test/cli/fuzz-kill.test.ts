/**
 * The `crash` recipe kills the server (SIGKILL to its process group) right after an
 * acknowledged write and while a write is in flight: a server that keeps its writes in memory
 * and saves them only when asked to stop loses them and is flagged `lost-write`, and its flag
 * exports to a scenario, kill step and all, that fails on it; a server that persists each write
 * before answering is not flagged.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { localDecl, writeDecl } from '../fuzz-helpers.ts';
import { memeval } from '../helpers.ts';
import { runInline, tempDir, timeLimit } from '../kit.ts';

const fuzz = (dir: string, declFile: string, db: string) =>
  memeval(
    [
      'fuzz',
      '--target',
      declFile,
      '--recipe',
      'crash',
      '--budget',
      '2',
      '--seed',
      'kill1',
      '--no-history',
      '--shrink',
      '0',
      '--flags',
      db,
      '--out',
      join(dir, 'out'),
    ],
    { timeout: timeLimit(180_000) },
  );

test(
  'crash: a server that loses acknowledged writes on a kill is flagged lost-write, and its export fails on it',
  { timeout: timeLimit(400_000) },
  async (t) => {
    const dir = tempDir(t);
    const db = join(dir, 'flags.db');
    const declFile = writeDecl(dir, localDecl('loser', 'save-at-exit'));
    const r = await fuzz(dir, declFile, db);
    const err = String(r.stderr);
    assert.equal(r.exitCode, 1, err);
    assert.equal((err.match(/FLAG [^\n]*lost-write/g) ?? []).length, 2, err);
    assert.match(err, /acknowledged before memeval killed the server at step \d+ \(server was killed by SIGKILL\)/);

    const rows = JSON.parse(String((await memeval(['flags', '--flags', db, '--json'])).stdout)) as {
      fingerprint: string;
    }[];
    assert.equal(rows.length, 2);
    const out = join(dir, 'regress');
    const exp = await memeval([
      'flags',
      'export',
      rows[0].fingerprint,
      '--flags',
      db,
      '--target',
      declFile,
      '--out',
      out,
    ]);
    assert.equal(exp.exitCode, 0, String(exp.stderr));
    const scen = JSON.parse(readFileSync(String(exp.stdout).split('\n')[0], 'utf8'));
    const steps = scen.deterministic.well_behaved as { op: string }[];
    assert.ok(
      steps.some((s) => s.op === 'kill'),
      JSON.stringify(steps),
    );
    assert.ok(scen.assertions.some((a: { kind: string }) => a.kind === 'durable'));
    const run = await runInline(t, { scenarios: out, targets: [declFile], config: { workers: 1 } });
    const wb = run.results.find((x) => x.phase === 'well-behaved')!;
    assert.equal(wb.verdict, 'fail', JSON.stringify(wb).slice(0, 2000));
    assert.equal(run.exitCode, 1);
    // the same scenario passes on a server that persists each write before answering
    const honest = writeDecl(join(dir, 'out'), localDecl('loser', ''));
    const rerun = await runInline(t, { scenarios: out, targets: [honest], config: { workers: 1 } });
    assert.equal(rerun.exitCode, 0, JSON.stringify(rerun.results).slice(0, 2000));
  },
);

test(
  'crash: a server that persists each write before answering is not flagged',
  { timeout: timeLimit(300_000) },
  async (t) => {
    const dir = tempDir(t);
    const r = await fuzz(dir, writeDecl(dir, localDecl('honest', '')), join(dir, 'flags.db'));
    const err = String(r.stderr);
    assert.equal(r.exitCode, 0, err);
    assert.doesNotMatch(err, /FLAG|crash checks|durability \(off\)/);
    assert.match(err, /crash: durability, forget/);
    assert.equal((err.match(/^\[\d\/2\] honest crash \S+ \S+ ok$/gm) ?? []).length, 2, err);
  },
);
