import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  faultyTarget,
  rawReport,
  runInline,
  scenario,
  tempDir,
  timeLimit,
  writeJson,
  type CliOptions,
  type InlineConfig,
  type KitReport,
} from '../kit.ts';

type T = { after: (fn: () => void) => void };
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

const wb = (r: KitReport) => r.results.find((c) => c.cell_id === CELL)!;

/** The CLI (what it prints about the gate is checked) on a scenarios folder and one target. */
const cli = (sc: string, target: string, gate?: InlineConfig['gate']): CliOptions => ({
  mode: 'cli',
  scenarios: sc,
  targets: [target],
  config: { workers: 1, gate },
});

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

    const same = await runInline(t, cli(x, tg.ok, { expectedFailures: file }));
    assert.equal(same.exitCode, 0, same.stdout + same.stderr);
    assert.match(
      same.stdout,
      /known failure: s1\/faulty\/well-behaved fail \(expected failure: the fault server keeps one copy\)/,
    );

    // the target now crashes: `error`, nothing was checked; not the failure the team accepted
    const crashed = await runInline(t, cli(x, tg.crash, { expectedFailures: file }));
    assert.equal(wb(crashed.report).verdict, 'error');
    assert.equal(crashed.exitCode, 1, crashed.stdout + crashed.stderr);
    assert.match(
      crashed.stdout,
      /regression: s1\/faulty\/well-behaved error: .*expected fail on \[copies of dark mode\]/,
    );
    assert.equal(crashed.report.summary.exit_code, 1);
    assert.deepEqual(crashed.report.gate?.known, []);

    // it fails on another assertion
    const other = await runInline(t, cli(y, tg.ok, { expectedFailures: file }));
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
    const refused = await runInline(t, cli(x, tg.ok, { expectedFailures: old }));
    assert.equal(refused.exitCode, 3, refused.stdout + refused.stderr);
    assert.match(
      refused.stderr,
      /old\.json5: \[0\]: s1\/faulty\/well-behaved names no verdict.*add verdict and assertions/,
    );
    assert.equal(refused.runDir, undefined, 'nothing ran');
  },
);

test(
  '--baseline: a cell failing in the baseline is known only when it fails the same way now',
  { timeout: timeLimit(600_000) },
  async (t) => {
    const tg = targets(t);
    const x = scenarios(t, 'x');
    const y = scenarios(t, 'y');
    const base = await runInline(t, cli(x, tg.ok));
    assert.equal(base.exitCode, 1);

    const same = await runInline(t, cli(x, tg.ok, { baseline: base.runDir }));
    assert.equal(same.exitCode, 0, same.stdout + same.stderr);
    assert.match(
      same.stdout,
      /known failure: s1\/faulty\/well-behaved fail \(fails in baseline .* too \(fail on \[copies of dark mode\]\)\)/,
    );

    const crashed = await runInline(t, cli(x, tg.crash, { baseline: base.runDir }));
    assert.equal(crashed.exitCode, 1, crashed.stdout + crashed.stderr);
    assert.match(
      crashed.stdout,
      /regression: s1\/faulty\/well-behaved error: .*baseline failed with fail on \[copies of dark mode\]/,
    );

    const other = await runInline(t, cli(y, tg.ok, { baseline: base.runDir }));
    assert.equal(other.exitCode, 1, other.stdout + other.stderr);
    assert.match(
      other.stdout,
      /regression: s1\/faulty\/well-behaved fail: .*baseline failed with fail on \[copies of dark mode\], now fail on \[no dark mode stored\]/,
    );

    // a baseline from another memeval version, of part of a run, or cut short: refused, exit 3
    const dir = tempDir(t);
    const saved = rawReport(base.runDir!);
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
      const r = await runInline(t, { mode: 'cli', scenarios: x, targets: [tg.ok], config: { gate: { baseline: f } } });
      assert.equal(r.exitCode, 3, `${name}: ${r.output}`);
      assert.match(r.stderr, message, name);
    }
  },
);
