import { test } from 'node:test';
import assert from 'node:assert/strict';
import { opsNeeded } from '../../../src/ops/ops.js';
import { scenarioSchema } from '../../../src/scenario/schema.js';
import { scenario } from '../../helpers.js';

const withAssertions = (assertions: unknown[]) => scenarioSchema.parse({ ...scenario('probe'), assertions });

const needs = (assertions: unknown[]) => [...opsNeeded(withAssertions(assertions), [])];

test('every judge that probes recall needs the recall op: recall, rank, llm over recall, inside a jury too', () => {
  const recall = { kind: 'recall', name: 'r', phase: 'both', query: 'Postgres', contains: 'Postgres' };
  const rank = { kind: 'rank', name: 'k', phase: 'both', query: 'Postgres', max_results: 0 };
  const llm = {
    kind: 'llm',
    name: 'l',
    phase: 'both',
    check: 'rubric',
    subject: 'recall',
    query: 'Postgres',
    criteria: 'mentions Postgres',
  };
  const count = { kind: 'count', name: 'c', phase: 'both', op: 'eq', value: 1 };
  assert.deepEqual(needs([recall]), ['recall']);
  // a target without recall made these cells `error` ("has no recall op"), not `unsupported`
  assert.deepEqual(needs([rank]), ['recall']);
  assert.deepEqual(needs([llm]), ['recall']);
  assert.deepEqual(needs([{ kind: 'jury', name: 'j', phase: 'both', rule: 'majority', judges: [count, rank] }]), [
    'recall',
  ]);
  assert.deepEqual(needs([count]), []);
});
