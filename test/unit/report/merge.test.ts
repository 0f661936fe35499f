/**
 * merge (report/merge.ts) over small crafted parts: every option that can change a verdict must
 * match across parts and is kept in the merged report, and a part of the intended whole that
 * never arrived is named.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { CellResult, Report, ReportOptions, RunPlan } from '../../../src/core/results.js';
import { mergeProblems, mergeReports } from '../../../src/report/merge.js';
import { buildMatrix } from '../../../src/report/matrix.js';
import type { ReadRun } from '../../../src/report/reader.js';
import { summarize } from '../../../src/report/report.js';
import { tempDir } from '../../helpers.ts';

const hash = (file: string) => ({ file, sha256: 'a'.repeat(64) });

/** One per-target job's report: s1 × `target`, well-behaved, passing. */
function part(target: string, options: ReportOptions = {}, plan: Partial<RunPlan> = {}): ReadRun {
  const id = `s1/${target}/well-behaved`;
  const results = [
    {
      cell_id: id,
      scenario: 's1',
      target,
      phase: 'well-behaved',
      driver: 'replay',
      verdict: 'pass',
      reason: 'ok',
      fails_run: false,
      steps: [],
      assertions: [],
      fixture: 'removed',
      warnings: [],
      duration_ms: 1,
      cell_dir: `cells/s1/${target}/well-behaved`,
    } as unknown as CellResult,
  ];
  const report = {
    schema_version: 2,
    run_id: `run-${target}`,
    status: 'completed',
    memeval_version: '1.0.0',
    layer: 'deterministic',
    started_at: '2025-01-01T00:00:00.000Z',
    ended_at: '2025-01-01T00:00:01.000Z',
    options: { retries: 0, fail_on: 'failures', ...options },
    scenarios: ['s1'],
    targets: [{ name: target, package: target, version: '1', claims: [] }],
    results,
    matrix: buildMatrix(results, [target]),
    summary: summarize(results, false),
    warnings: [],
    plan: {
      cells: [id],
      shard: null,
      scenarios: { s1: hash('/sc/s1.json') },
      targets: { [target]: hash(`/t/${target}.json5`) },
      ...plan,
    },
  } as Report;
  return { report, file: `/runs/${target}/report.json`, runDir: `/runs/${target}` };
}

test('route 10: merge refuses parts judged under another --judge-level, --judge-min-confidence, --retries or --fail-on, naming the option and both parts', () => {
  const cases: [ReportOptions, ReportOptions, RegExp][] = [
    [{ judge_level: 'fail' }, {}, /judge_level null, but \/runs\/a\/report\.json ran with "fail".*--judge-level/],
    [
      { judge_min_confidence: 0.9 },
      { judge_min_confidence: 0.5 },
      /judge_min_confidence 0\.5, but .* ran with 0\.9.*--judge-min-confidence/,
    ],
    [
      { retries: 2 },
      { retries: 0 },
      /\/runs\/b\/report\.json: retries 0, but \/runs\/a\/report\.json ran with 2.*--retries/,
    ],
    [{ fail_on: 'flaky' }, { fail_on: 'failures' }, /fail_on "failures", but .* ran with "flaky".*--fail-on/],
  ];
  for (const [a, b, re] of cases) {
    const problems = mergeProblems([part('a', a), part('b', b)]);
    assert.equal(problems.length, 1, JSON.stringify(problems));
    assert.match(problems[0], re);
  }
  assert.deepEqual(mergeProblems([part('a', { judge_level: 'fail' }), part('b', { judge_level: 'fail' })]), []);
});

test('route 10: the merged report keeps every verdict option of its parts', (t) => {
  const options: ReportOptions = { judge_level: 'fail', judge_min_confidence: 0.8, retries: 1, fail_on: 'flaky' };
  const { report } = mergeReports([part('a', options), part('b', options)], join(tempDir(t), 'merged'));
  for (const [k, v] of Object.entries(options)) assert.deepEqual(report.options[k], v, k);
});

test('route 19: a target of --intended-targets whose job wrote nothing is named, and merge refuses', (t) => {
  const whole = { intended_targets: ['a', 'b', 'c'] };
  const problems = mergeProblems([part('a', {}, whole), part('b', {}, whole)]);
  assert.equal(problems.length, 1, JSON.stringify(problems));
  assert.match(
    problems[0],
    /no part ran target\(s\) c of the intended targets \[a, b, c\] \(--intended-targets, recorded in \/runs\/a\/report\.json\).*rerun the job of c/,
  );
  assert.deepEqual(mergeProblems([part('a', {}, whole), part('b', {}, whole), part('c', {}, whole)]), []);
  // parts that disagree on the whole, or one that does not say
  assert.match(
    mergeProblems([part('a', {}, whole), part('b', {}, { intended_targets: ['a', 'b'] })]).join('\n'),
    /\/runs\/b\/report\.json: is one part of a run over targets \[a, b\], but \/runs\/a\/report\.json of \[a, b, c\]/,
  );
  assert.match(
    mergeProblems([part('a', {}, whole), part('b'), part('c', {}, whole)]).join('\n'),
    /\/runs\/b\/report\.json: records no --intended-targets/,
  );
  // the merged run keeps the whole set, so a later merge or baseline can tell
  const parts = ['a', 'b', 'c'].map((n) => part(n, {}, whole));
  assert.deepEqual(mergeReports(parts, join(tempDir(t), 'merged')).report.plan?.intended_targets, ['a', 'b', 'c']);
});
