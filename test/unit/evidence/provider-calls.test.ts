// provider_calls keeps the stage each request arrived in; evidence written before the column
// still reads, with an unknown stage (a fault served there cannot count as the phase's).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { servedFaultRules, writeProviderCalls } from '../../../src/evidence/provider-calls.js';
import { PROVIDER_CALLS_COLUMNS } from '../../../src/evidence/schema.js';
import type { ProviderCall } from '../../../src/model/provider/types.js';

const call = (seq: number, over: Partial<ProviderCall>): ProviderCall => ({
  seq,
  ts: '2026-01-01T00:00:00.000Z',
  method: 'POST',
  path: '/v1/embeddings',
  protocol: 'openai-embeddings',
  kind: 'embeddings',
  model: 'm',
  inputs: ['x'],
  dimensions: 16,
  matched: ['none'],
  answer: null,
  held_ms: 0,
  status: 200,
  ms: 1,
  fault: null,
  fault_rule: null,
  stage: null,
  ...over,
});

test('provider_calls: the stage column, and the served faults with their stage', () => {
  const db = new Database(':memory:');
  writeProviderCalls(db, [
    call(1, { stage: 'setup', status: 429, fault: 'http-429', fault_rule: 'r' }),
    call(2, { stage: 'step' }),
    call(3, { stage: 'step', status: 500, fault: 'http-500', fault_rule: 'r' }),
  ]);
  assert.deepEqual(db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('provider_calls'), [
    ...PROVIDER_CALLS_COLUMNS,
  ]);
  assert.deepEqual(servedFaultRules(db), [
    { fault_rule: 'r', stage: 'setup' },
    { fault_rule: 'r', stage: 'step' },
  ]);
});

test('provider_calls from before the stage column: served faults read with an unknown stage', () => {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE provider_calls (seq INTEGER PRIMARY KEY, fault TEXT, fault_rule TEXT)');
  db.exec("INSERT INTO provider_calls VALUES (1, 'http-429', 'r'), (2, NULL, NULL)");
  assert.deepEqual(servedFaultRules(db), [{ fault_rule: 'r', stage: null }]);
});
