import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shardCells } from '../../../src/cell/shard.js';

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
