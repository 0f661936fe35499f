import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { memeval, scenario, tempDir, writeJson, timeLimit } from '../helpers.ts';
import { faultyTarget } from '../faulty.ts';

type T = { after: (fn: () => void) => void };
const ENV = { NO_COLOR: '1', FORCE_COLOR: '0' };
const CELL = 's1/faulty/well-behaved';

/**
 * s1 on the fault server; its well-behaved cell is the one gated. Version "x" fails on `copies of dark mode`
 * (it expects two); version "y" passes that one and fails on `no dark mode stored` instead.
 */
function scenarios(t: T, which: 'x' | 'y'): string {
  const dir = join(tempDir(t, 'memeval-sc-'), 'sc');
  mkdirSync(dir);
  const copies = {
    kind: 'count',
    name: 'copies of dark mode',
    phase: 'well-behaved',
    contains: 'dark mode',
    op: 'eq',
    value: which === 'x' ? 2 : 1,
  };
  const absent = { kind: 'absent', name: 'no dark mode stored', phase: 'well-behaved', text: 'dark mode' };
  // the violation cell is `detected` (the fault server claims nothing): never a failure of the run
  const token = { kind: 'absent', name: 'no token', phase: 'violation', text: 'sk_test_abcdef123456' };
  writeJson(
    join(dir, 's1.json'),
    scenario('s1', { assertions: which === 'x' ? [copies, token] : [copies, absent, token] }),
  );
  return dir;
}

const wb = (r: { results: { cell_id: string; verdict: string }[] }) => r.results.find((c) => c.cell_id === CELL)!;

async function run(t: T, sc: string, target: string, extra: string[] = []) {
  const out = tempDir(t, 'memeval-run-');
  const r = await memeval(['run', '--scenarios', sc, '--target', target, '--out', out, '--workers', '1', ...extra], {
    env: ENV,
    timeout: timeLimit(240_000),
  });
  const runs = readdirSync(out);
  const runDir = runs.length ? join(out, runs[0]) : '';
  const report = runs.length ? JSON.parse(readFileSync(join(runDir, 'report.json'), 'utf8')) : undefined;
  return { exitCode: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr), runDir, report, out };
}

function targets(t: T) {
  const dir = tempDir(t);
  mkdirSync(join(dir, 'crash'));
  // the same target name, once well behaved and once crashing at start (every cell `error`)
  return { ok: faultyTarget(dir, 'faulty', 'ok'), crash: faultyTarget(join(dir, 'crash'), 'faulty', 'crash-at-start') };
}

test(
  '--expected-failures accepts a listed cell only when it fails the way the entry says',
  { timeout: timeLimit(600_000) },
  async (t) => {
    const tg = targets(t);
    const x = scenarios(t, 'x');
    const y = scenarios(t, 'y');
    const file = writeJson(join(tempDir(t), 'expected.json5'), [
      {
        scenario: 's1',
        target: 'faulty',
        phase: 'well-behaved',
        verdict: 'fail',
        assertions: ['copies of dark mode'],
        reason: 'the fault server keeps one copy',
      },
    ]);

    const same = await run(t, x, tg.ok, ['--expected-failures', file]);
    assert.equal(same.exitCode, 0, same.stdout + same.stderr);
    assert.match(
      same.stdout,
      /known failure: s1\/faulty\/well-behaved fail \(expected failure: the fault server keeps one copy\)/,
    );

    // the target now crashes: `error`, nothing was checked; not the failure the team accepted
    const crashed = await run(t, x, tg.crash, ['--expected-failures', file]);
    assert.equal(wb(crashed.report).verdict, 'error');
    assert.equal(crashed.exitCode, 1, crashed.stdout + crashed.stderr);
    assert.match(
      crashed.stdout,
      /regression: s1\/faulty\/well-behaved error: .*expected fail on \[copies of dark mode\]/,
    );
    assert.equal(crashed.report.summary.exit_code, 1);
    assert.deepEqual(crashed.report.gate.known, []);

    // it fails on another assertion
    const other = await run(t, y, tg.ok, ['--expected-failures', file]);
    assert.equal(wb(other.report).verdict, 'fail');
    assert.equal(other.exitCode, 1, other.stdout + other.stderr);
    assert.match(
      other.stdout,
      /regression: s1\/faulty\/well-behaved fail: .*expected fail on \[copies of dark mode\], got fail on \[no dark mode stored\]/,
    );

    // an entry in the old format (no verdict) is refused before anything runs, with the fix
    const old = writeJson(join(tempDir(t), 'old.json5'), [
      { scenario: 's1', target: 'faulty', phase: 'well-behaved', reason: 'known' },
    ]);
    const refused = await run(t, x, tg.ok, ['--expected-failures', old]);
    assert.equal(refused.exitCode, 3, refused.stdout + refused.stderr);
    assert.match(
      refused.stderr,
      /old\.json5: \[0\]: s1\/faulty\/well-behaved names no verdict.*add verdict and assertions/,
    );
    assert.equal(refused.runDir, '', 'nothing ran');
  },
);

test(
  '--baseline: a cell failing in the baseline is known only when it fails the same way now',
  { timeout: timeLimit(600_000) },
  async (t) => {
    const tg = targets(t);
    const x = scenarios(t, 'x');
    const y = scenarios(t, 'y');
    const base = await run(t, x, tg.ok);
    assert.equal(base.exitCode, 1);

    const same = await run(t, x, tg.ok, ['--baseline', base.runDir]);
    assert.equal(same.exitCode, 0, same.stdout + same.stderr);
    assert.match(
      same.stdout,
      /known failure: s1\/faulty\/well-behaved fail \(fails in baseline .* too \(fail on \[copies of dark mode\]\)\)/,
    );

    const crashed = await run(t, x, tg.crash, ['--baseline', base.runDir]);
    assert.equal(crashed.exitCode, 1, crashed.stdout + crashed.stderr);
    assert.match(
      crashed.stdout,
      /regression: s1\/faulty\/well-behaved error: .*baseline failed with fail on \[copies of dark mode\]/,
    );

    const other = await run(t, y, tg.ok, ['--baseline', base.runDir]);
    assert.equal(other.exitCode, 1, other.stdout + other.stderr);
    assert.match(
      other.stdout,
      /regression: s1\/faulty\/well-behaved fail: .*baseline failed with fail on \[copies of dark mode\], now fail on \[no dark mode stored\]/,
    );

    // a baseline from another memeval version, of part of a run, or cut short: refused, exit 3
    const dir = tempDir(t);
    const saved = JSON.parse(readFileSync(join(base.runDir, 'report.json'), 'utf8'));
    const cases: [string, (r: Record<string, unknown>) => void, RegExp][] = [
      ['version', (r) => (r.memeval_version = '0.0.1'), /written by memeval 0\.0\.1.*rerun the baseline with memeval/],
      ['interrupted', (r) => (r.status = 'interrupted'), /status interrupted: not a complete run/],
      [
        'shard',
        (r) => ((r.plan as { shard: unknown }).shard = { index: 1, count: 2 }),
        /shard 1\/2 of a run: merge the shards/,
      ],
      [
        'missing',
        (r) =>
          ((r.plan as { cells: string[] }).cells = [
            ...(r.plan as { cells: string[] }).cells,
            's9/faulty/well-behaved',
          ]),
        /no result for planned cell\(s\) s9\/faulty\/well-behaved/,
      ],
      ['old', (r) => delete r.plan, /no plan .*rerun the baseline with memeval/],
    ];
    for (const [name, edit, message] of cases) {
      const copy = structuredClone(saved);
      edit(copy);
      const f = writeJson(join(dir, `${name}.json`), copy);
      const r = await memeval(
        ['run', '--scenarios', x, '--target', tg.ok, '--out', join(dir, 'out'), '--baseline', f],
        { env: ENV, timeout: timeLimit(120_000) },
      );
      assert.equal(r.exitCode, 3, `${name}: ${r.stdout}${r.stderr}`);
      assert.match(String(r.stderr), message, name);
    }
  },
);
