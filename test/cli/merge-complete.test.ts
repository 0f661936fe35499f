import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { memeval } from '../helpers.ts';
import { scenarioDir } from '../faulty.ts';
import {
  copies,
  faultyTarget,
  rawReport,
  readReportFile,
  runInline,
  scenarioFolder,
  tempDir,
  timeLimit,
  writeJson,
  type InlineConfig,
} from '../kit.ts';

type T = { after: (fn: () => void) => void };
const ENV = { NO_COLOR: '1', FORCE_COLOR: '0' };

/** One part of a run (in process); its run dir (it must have written a report). */
async function part(t: T, scenarios: string, target: string, config: InlineConfig = {}, env?: Record<string, string>) {
  const r = await runInline(t, { scenarios, targets: [target], config: { workers: 2, ...config }, env });
  assert.ok(r.runDir && r.reportPath, `a report was written (exit ${r.exitCode}):\n${r.output}`);
  return { runDir: r.runDir, exitCode: r.exitCode };
}

async function merge(t: T, parts: string[], extra: string[] = []) {
  const out = tempDir(t, 'memeval-merged-');
  const r = await memeval(['merge', ...parts, '--out', out, ...extra], { env: ENV, timeout: timeLimit(120_000) });
  return { ...r, stdout: String(r.stdout), stderr: String(r.stderr), out, written: readdirSync(out) };
}

// four cells: s1 and s2, each well-behaved and violation; round-robin shard 1/2 holds both violation cells
test(
  'merge refuses what is not one complete run: a missing shard, another scenario or target file under the same name, a shard given twice',
  { timeout: timeLimit(600_000) },
  async (t) => {
    const dir = tempDir(t);
    const sc = scenarioDir(dir, 2);
    const target = faultyTarget(dir, 'faulty', 'ok');
    const shard = (index: number, config: InlineConfig = {}) => ({ shard: { index, count: 2 }, ...config });
    const a1 = await part(t, sc, target, shard(1));
    const a2 = await part(t, sc, target, shard(2));
    const plan = readReportFile(a1.runDir).plan as Record<string, any>;
    assert.deepEqual(plan.cells, [
      's1/faulty/violation',
      's1/faulty/well-behaved',
      's2/faulty/violation',
      's2/faulty/well-behaved',
    ]);
    assert.deepEqual(plan.shard, { index: 1, count: 2 });
    assert.match(plan.scenarios.s1.sha256, /^[0-9a-f]{64}$/);
    assert.match(plan.targets.faulty.sha256, /^[0-9a-f]{64}$/);

    // the two shards make one run
    const ok = await merge(t, [a1.runDir, a2.runDir]);
    assert.equal(ok.exitCode, 0, ok.stderr);
    assert.match(ok.stdout, /merged 2 run\(s\): 4 cell\(s\)/);

    // shard 2/2 never arrived
    const missing = await merge(t, [a1.runDir]);
    assert.equal(missing.exitCode, 3, missing.stdout + missing.stderr);
    assert.match(missing.stderr, /missing 2 planned cell\(s\): s1\/faulty\/well-behaved, s2\/faulty\/well-behaved/);
    assert.match(missing.stderr, /shard 2\/2 .*not given/);
    assert.deepEqual(missing.written, [], 'a refused merge writes nothing');

    // shard 2/2 ran other scenario files under the same ids
    const otherSc = scenarioDir(join(dir, 'other'), 2, { title: 'edited since shard 1/2 ran' });
    const b2 = await part(t, otherSc, target, shard(2));
    const diffSc = await merge(t, [a1.runDir, b2.runDir]);
    assert.equal(diffSc.exitCode, 3, diffSc.stdout + diffSc.stderr);
    assert.match(
      diffSc.stderr,
      new RegExp(
        `scenario s1: .*${join(sc, 's1.json')} \\(sha256 [0-9a-f]{12}\\).* but .*${join(otherSc, 's1.json')} \\(sha256 [0-9a-f]{12}\\)`,
      ),
    );
    assert.deepEqual(diffSc.written, []);

    // and another target declaration under the same name
    const otherTarget = faultyTarget(join(dir, 'other'), 'faulty', 'ok', { call_timeout_ms: 25000 });
    const c2 = await part(t, sc, otherTarget, shard(2));
    const diffTarget = await merge(t, [a1.runDir, c2.runDir]);
    assert.equal(diffTarget.exitCode, 3, diffTarget.stdout + diffTarget.stderr);
    assert.match(
      diffTarget.stderr,
      /target faulty: .*faulty\.json5 \(sha256 [0-9a-f]{12}\).* but .*other\/faulty\.json5 \(sha256 [0-9a-f]{12}\)/,
    );

    // overlapping: the same part twice, and two parts that both say they are shard 1/2 (balanced
    // by other durations, they hold different cells: no cell is in both, yet the run is not one)
    const twice = await merge(t, [a1.runDir, a1.runDir]);
    assert.equal(twice.exitCode, 3);
    assert.match(twice.stderr, /cell s1\/faulty\/violation is in both .* shards must not overlap/);
    const full = await part(t, sc, target);
    const durations = rawReport(full.runDir) as { results: { cell_id: string; duration_ms: number }[] };
    const ms: Record<string, number> = { 's1/faulty/well-behaved': 100000, 's2/faulty/well-behaved': 90000 };
    for (const r of durations.results) r.duration_ms = ms[r.cell_id] ?? 1;
    const durationsFile = writeJson(join(dir, 'durations.json'), durations);
    const d1 = await part(t, sc, target, shard(1, { shardDurations: durationsFile }));
    const d1Cells = readReportFile(d1.runDir).results.map((r) => r.cell_id);
    assert.deepEqual(d1Cells, ['s1/faulty/well-behaved'], 'this shard 1/2 holds a cell the other shard 1/2 does not');
    const dup = await merge(t, [a1.runDir, d1.runDir]);
    assert.equal(dup.exitCode, 3, dup.stdout + dup.stderr);
    assert.match(dup.stderr, /shard 1\/2 is given twice/);
    assert.deepEqual(dup.written, []);
  },
);

test(
  'merge: a report from before plans were recorded is refused with the fix',
  { timeout: timeLimit(300_000) },
  async (t) => {
    const dir = tempDir(t);
    const sc = scenarioDir(dir, 1);
    const target = faultyTarget(dir, 'faulty', 'ok');
    const a = await part(t, sc, target);
    const old = rawReport(a.runDir);
    delete old.plan;
    const oldDir = join(tempDir(t), 'old');
    mkdirSync(oldDir);
    writeJson(join(oldDir, 'report.json'), old);
    const r = await merge(t, [oldDir]);
    assert.equal(r.exitCode, 3, r.stdout + r.stderr);
    assert.match(r.stderr, /no plan .*rerun it with memeval \d+\.\d+/);
  },
);

test('merge with a blocked part exits 2, as that part did', { timeout: timeLimit(300_000) }, async (t) => {
  const dir = tempDir(t);
  const sc = scenarioDir(dir, 2);
  const target = faultyTarget(dir, 'faulty', 'ok');
  const a1 = await part(t, sc, target, { shard: { index: 1, count: 2 } });
  // a judge off this machine without --i-understand-model-cost: the shard is blocked before anything runs
  const blocked = await part(
    t,
    sc,
    target,
    { shard: { index: 2, count: 2 }, judge: { model: 'gpt-judge-x' } },
    { OPENAI_API_KEY: 'sk-never-used' },
  );
  assert.equal(blocked.exitCode, 2);
  const m = await merge(t, [a1.runDir, blocked.runDir]);
  assert.equal(m.exitCode, 2, m.stdout + m.stderr);
  assert.match(m.stdout + m.stderr, /blocked/);
  const [merged] = m.written;
  const report = readReportFile(join(m.out, merged));
  assert.equal(report.status, 'blocked');
  assert.equal(report.summary.exit_code, 2);
  // a gate does not turn it into a pass either
  const g = await merge(t, [a1.runDir, blocked.runDir], ['--fail-on', 'regressions']);
  assert.equal(g.exitCode, 2, g.stdout + g.stderr);
});

test('merge with an interrupted part exits 130, as that part did', { timeout: timeLimit(300_000) }, async (t) => {
  const dir = tempDir(t);
  const searches = join(dir, 'searches.log');
  // only s1's violation cell (in shard 1/2) asks the server to search, and the search never answers
  const [s1, s2] = copies(2);
  (s1.assertions as object[]).push({
    kind: 'recall',
    name: 'recalls dark mode',
    phase: 'violation',
    query: 'dark',
    contains: 'dark mode',
  });
  const sc = scenarioFolder(dir, [s1, s2]);
  const target = faultyTarget(dir, 'faulty', 'slow-recall', { call_timeout_ms: 60000 }, { SEARCH_LOG: searches });
  const out = tempDir(t, 'memeval-part-');
  const child = memeval(
    ['run', '--scenarios', sc, '--target', target, '--shard', '1/2', '--out', out, '--workers', '2'],
    { env: ENV, timeout: timeLimit(120_000) },
  );
  const deadline = Date.now() + timeLimit(90_000);
  while (!existsSync(searches) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.ok(existsSync(searches), 'the recall probe searched');
  child.kill('SIGINT');
  assert.equal((await child).exitCode, 130);
  const i1 = join(out, readdirSync(out)[0]);
  const a2 = await part(t, sc, target, { shard: { index: 2, count: 2 } });
  assert.equal(a2.exitCode, 0);
  const m = await merge(t, [i1, a2.runDir]);
  assert.equal(m.exitCode, 130, m.stdout + m.stderr);
  const report = readReportFile(join(m.out, m.written[0]));
  assert.equal(report.status, 'interrupted');
  assert.equal(report.summary.exit_code, 130);
});

test(
  'per-target jobs record the options that can change a verdict and the intended targets; merge refuses a part judged otherwise, or a missing target (exit 3)',
  { timeout: timeLimit(300_000) },
  async (t) => {
    const dir = tempDir(t);
    const sc = scenarioDir(dir, 1);
    const a = faultyTarget(dir, 'alpha', 'ok');
    const b = faultyTarget(dir, 'beta', 'ok');
    const whole = { intendedTargets: ['alpha', 'beta', 'gamma'], judge: { level: 'fail' as const } };
    const ja = await part(t, sc, a, { ...whole, retries: 1 });
    const jb = await part(t, sc, b, { ...whole, retries: 2 });
    const ra = readReportFile(ja.runDir) as Record<string, any>;
    assert.deepEqual(
      [ra.options.retries, ra.options.fail_on, ra.options.judge_level, ra.plan.intended_targets],
      [1, 'failures', 'fail', ['alpha', 'beta', 'gamma']],
    );
    const m = await merge(t, [ja.runDir, jb.runDir]);
    assert.equal(m.exitCode, 3, m.stdout + m.stderr);
    assert.match(m.stderr, /retries 2, but .* ran with 1.*--retries/);
    assert.match(m.stderr, /no part ran target\(s\) gamma of the intended targets \[alpha, beta, gamma\]/);
    assert.deepEqual(m.written, [], 'a refused merge writes nothing');
    // a run whose own target is not in the intended set is refused before anything runs
    const bad = await runInline(t, { scenarios: sc, targets: [b], config: { intendedTargets: ['alpha'] } });
    assert.equal(bad.exitCode, 3, bad.output);
    assert.match(
      bad.output,
      /--intended-targets: this run's target\(s\) beta are not among the intended targets \[alpha\]/,
    );
    assert.deepEqual(existsSync(bad.out) ? readdirSync(bad.out) : [], []);
  },
);
