import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CellResult } from '../../../src/core/results.ts';
import { repeatStats } from '../../../src/report/repeats.ts';

test('repeats count only runs that ran: unsupported and skipped runs are neither passes nor runs', () => {
  const cell = (target: string, verdict: CellResult['verdict'], fails_run = false) =>
    ({ scenario: 's', target, phase: 'real-model', verdict, fails_run }) as CellResult;
  const stats = repeatStats([
    cell('mixed', 'pass'),
    cell('mixed', 'unsupported'),
    cell('mixed', 'skipped'),
    cell('mixed', 'fail', true),
    cell('mixed', 'error', true),
    cell('none', 'unsupported'),
    cell('none', 'unsupported'),
  ]);
  const mixed = stats.find((s) => s.target === 'mixed')!;
  // an error is a run that broke: it stays in, as not passed
  assert.deepEqual([mixed.runs, mixed.passed, mixed.pass_rate, mixed.pass_all, mixed.not_run], [3, 1, 0.333, false, 2]);
  const none = stats.find((s) => s.target === 'none')!;
  assert.deepEqual(
    [none.runs, none.passed, none.pass_rate, none.pass_all, none.not_run, none.wilson95],
    [0, 0, null, false, 2, [0, 1]],
  );
});

test('deterministic repeats are counted per phase: a violation run is not a well-behaved trial', () => {
  const cell = (phase: CellResult['phase'], verdict: CellResult['verdict'], fails_run = false) =>
    ({ scenario: 's', target: 't', phase, verdict, fails_run }) as CellResult;
  const stats = repeatStats([
    cell('well-behaved', 'pass'),
    cell('well-behaved', 'fail', true),
    cell('violation', 'detected'),
    cell('violation', 'detected'),
  ]);
  assert.deepEqual(
    stats.map((s) => [s.phase, s.runs, s.passed]),
    [
      ['well-behaved', 2, 1],
      ['violation', 2, 2],
    ],
  );
});
