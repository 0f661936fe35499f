// The kind and step-op records are where every set about kinds and ops comes from: these check
// that the sets derived from them say what the rest of memeval relies on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  absentTexts,
  holdsOnEmptyStore,
  isBounded,
  needsModel,
  needsRecallHit,
  probeQueries,
  readsRecall,
  whyNotRejudgeable,
  withMembers,
} from '../../../src/scenario/kinds.ts';
import { DECLARED_OPS, DEFENDING_REFUSALS, STEP_OPS, WRITE_OPS, callsTarget } from '../../../src/scenario/step-ops.ts';
import { MEMORY_OPS, assertionSchema, type Assertion } from '../../../src/scenario/schema.ts';

const parse = (x: Record<string, unknown>): Assertion => assertionSchema.parse({ name: 'n', phase: 'both', ...x });

test('the step-op record: the declared ops are the schema memory ops; writes and defending refusals as the verdict reads them', () => {
  assert.deepEqual([...DECLARED_OPS], [...MEMORY_OPS]);
  for (const op of Object.keys(STEP_OPS))
    assert.equal(STEP_OPS[op as keyof typeof STEP_OPS].declared, (MEMORY_OPS as readonly string[]).includes(op), op);
  assert.deepEqual([...WRITE_OPS].sort(), ['curate', 'expire', 'forget', 'remember', 'update']);
  // only a refused call that would have carried the violation in defends
  assert.deepEqual([...DEFENDING_REFUSALS].sort(), ['forget', 'remember', 'update']);
  assert.equal(callsTarget({ op: 'restart' }), false);
  assert.equal(callsTarget({ op: 'advance_clock' }), false);
  assert.equal(callsTarget({ op: 'tool' }), true);
});

test('traits reach inside a jury or cascade: probes, recall reads, models, absent texts, rejudge', () => {
  const jury = parse({
    kind: 'jury',
    rule: 'majority',
    judges: [
      { kind: 'rank', name: 'r', query: 'which editor', memory: '$ref:e', top_k: 1 },
      { kind: 'absent', name: 'a', text: 'hunter2' },
      { kind: 'llm', name: 'l', subject: 'recall', query: 'deploys', check: 'relevance' },
    ],
  });
  assert.deepEqual(probeQueries([jury]), ['which editor', 'deploys']);
  assert.equal(readsRecall(jury), true);
  assert.equal(needsModel(jury), true);
  assert.equal(needsRecallHit(jury), true);
  assert.deepEqual(absentTexts([jury]), [{ text: 'hunter2', caseSensitive: false }]);
  assert.equal(withMembers([jury]).length, 4);
  // a composition is not bounded itself: its members go to the judge process one by one
  assert.equal(isBounded(jury), false);
  assert.equal(isBounded(parse({ kind: 'sql', query: 'SELECT 1', op: 'eq', value: 1 })), true);
  assert.equal(whyNotRejudgeable(jury, 2)?.includes('absent "a" also read 2 fixture file(s)'), true);
  assert.equal(whyNotRejudgeable(jury, 0), null);
  const files = parse({ kind: 'llm', subject: 'files', files: ['x.md'], check: 'rubric', criteria: 'c' });
  assert.match(whyNotRejudgeable(files) ?? '', /reads the fixture/);
});

test('sql reads what its query names; a count that 0 satisfies holds on an empty store', () => {
  const sql = (query: string) => parse({ kind: 'sql', query, op: 'eq', value: 0 });
  assert.equal(readsRecall(sql('SELECT count(*) FROM calls WHERE result_text LIKE "%x%"')), true);
  assert.equal(readsRecall(sql('SELECT count(*) FROM memories')), false);
  assert.equal(holdsOnEmptyStore(sql('SELECT count(*) FROM memories')), true);
  assert.equal(holdsOnEmptyStore(parse({ kind: 'count', op: 'gte', value: 1 })), false);
});
