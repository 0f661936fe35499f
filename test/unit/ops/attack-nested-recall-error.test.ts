/**
 * Attack: a recall whose JSON answer says it failed one level down, beside the declared array
 * (`recall_results.json: "data.results"`, answer `{"data": {"results": [], "error": "index
 * unavailable"}}`), or with a failure status other than "error" (`{"status": "failed",
 * "results": []}`). memeval looks for the failure markers at the top level only, so both read as
 * "found nothing": a `recall not_contains` over a forgotten memory passes, and a `rank absent`
 * holds, on a recall that never searched.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { targetSchema } from '../../../src/targets/schema.ts';
import { itemiseRecall } from '../../../src/ops/recall.ts';

const decl = (json: string) =>
  targetSchema.parse({
    name: 't',
    description: 'd',
    server: { command: 'x' },
    store: { format: 'jsonl', path: '{{data}}/s.jsonl' },
    views: { memories: 'SELECT 1' },
    ops: {},
    recall_results: { json },
  });

test('an error beside the declared results array, one level down, is not "no results"', () => {
  const r = itemiseRecall(decl('data.results'), '{"data":{"results":[],"error":"index unavailable"}}', 'employer');
  assert.ok(r.unreadable, `read as ${r.items.length} result(s), no failure: ${JSON.stringify(r)}`);
});

test('a status "failed" beside an empty results array is not "no results"', () => {
  const r = itemiseRecall(decl('results'), '{"status":"failed","results":[]}', 'employer');
  assert.ok(r.unreadable, `read as ${r.items.length} result(s), no failure: ${JSON.stringify(r)}`);
});
