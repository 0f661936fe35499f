import { test } from 'node:test';
import assert from 'node:assert/strict';
import { durationCoverageWarning, shardCells } from '../../../src/cell/shard.js';

test('shardCells: every cell in exactly one shard, the same split every time, balanced by recorded durations', () => {
  const ids = Array.from({ length: 10 }, (_, i) => `s${i}/t/well-behaved`);
  for (const n of [1, 2, 3, 4]) {
    const shards = Array.from({ length: n }, (_, i) => shardCells(ids, { index: i + 1, count: n }));
    assert.deepEqual(shards.flat().sort(), [...ids].sort());
    assert.deepEqual(
      shardCells([...ids].reverse(), { index: 1, count: n }),
      shards[0],
      'order of planning does not matter',
    );
  }
  // one slow cell: it gets a shard of its own, the rest share the other
  const durations = new Map(ids.map((id, i) => [id, i === 7 ? 9000 : 1000]));
  const a = shardCells(ids, { index: 1, count: 2 }, durations);
  const b = shardCells(ids, { index: 2, count: 2 }, durations);
  assert.deepEqual(a, ['s7/t/well-behaved']);
  assert.equal(b.length, 9);
  assert.deepEqual(
    shardCells([...ids, 'new/t/violation'], { index: 1, count: 2 }, durations).length +
      shardCells([...ids, 'new/t/violation'], { index: 2, count: 2 }, durations).length,
    11,
  );
});

test('shardCells: durations from an interrupted run (most cells skipped, 0 ms) still split evenly, with a coverage warning', () => {
  // 896 planned cells; the interrupted run measured 23 and skipped the rest with duration 0
  const ids = Array.from({ length: 896 }, (_, i) => `s${String(i).padStart(3, '0')}/t/well-behaved`);
  const durations = new Map(ids.map((id, i) => [id, i < 23 ? 5000 + i : 0]));
  const sizes = [1, 2].map((i) => shardCells(ids, { index: i, count: 2 }, durations).length);
  assert.equal(sizes[0] + sizes[1], 896);
  assert.ok(Math.abs(sizes[0] - sizes[1]) <= 2, `shards of ${sizes.join('/')} cells, not balanced`);
  const warning = durationCoverageWarning(ids, durations);
  assert.match(warning ?? '', /only 23 of 896 planned cell\(s\) \(3%\) have a recorded duration/);
  // a complete run: no warning
  assert.equal(durationCoverageWarning(ids, new Map(ids.map((id) => [id, 1000]))), undefined);
  // no cell measured at all: dealt round-robin, still even
  const none = new Map(ids.map((id) => [id, 0]));
  assert.equal(shardCells(ids, { index: 1, count: 2 }, none).length, 448);
});
