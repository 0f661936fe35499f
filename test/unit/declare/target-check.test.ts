// The parts of `memeval targets check` that need no server: argument names against a tool's
// input schema, one line per point, the summary, JSON array paths, and which claims a scenario checks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  fail,
  formatPoint,
  jsonArrayPaths,
  pass,
  pointsHold,
  skip,
  summaryLine,
  unchecked,
} from '../../../src/declare/check/points.js';
import { rankVerdict } from '../../../src/declare/check/recall-rank.js';
import { argumentProblems, toolPoints } from '../../../src/declare/check/tool-points.js';
import { claimPoints } from '../../../src/declare/check/claim-coverage.js';
import { loadScenarios, scenarioFiles } from '../../../src/scenario/loader.js';
import { loadTarget } from '../../../src/targets/loader.js';
import type { TargetDecl } from '../../../src/targets/schema.js';
import { BUILTIN_SCENARIOS } from '../../../src/util/paths.js';

const schema = {
  type: 'object',
  properties: { query: { type: 'string' }, limit: { type: 'number' } },
  required: ['query'],
};

test('argumentProblems: names the schema lists and supplies what it requires', () => {
  assert.deepEqual(argumentProblems(schema, { query: '{{query}}' }), { problems: [], listed: ['query', 'limit'] });
  assert.deepEqual(argumentProblems(schema, { query: 'x', limit: 3 }), { problems: [], listed: ['query', 'limit'] });
});

test('argumentProblems: an unknown name, with the nearest listed one, and a missing required one', () => {
  const r = argumentProblems(schema, { qurey: '{{query}}' });
  assert.notEqual(r, 'unknown');
  assert.deepEqual(r !== 'unknown' && r.problems, [
    'argument "qurey" is not in its input schema (did you mean "query"?)',
    'required argument "query" is not supplied',
  ]);
});

test('argumentProblems: a schema that lists no properties cannot vouch for names, but no names need none', () => {
  assert.equal(argumentProblems({ type: 'object' }, { anything: 1 }), 'unknown');
  assert.equal(argumentProblems(undefined, { anything: 1 }), 'unknown');
  assert.deepEqual(argumentProblems({ type: 'object' }, {}), { problems: [], listed: [] });
  // required names alone are still checked
  const r = argumentProblems({ type: 'object', required: ['id'] }, {});
  assert.deepEqual(r !== 'unknown' && r.problems, ['required argument "id" is not supplied']);
});

test('formatPoint: one line each, a mark, the subject, what was seen, and the fix for a failure', () => {
  assert.equal(formatPoint(pass('tool', 'ops.recall[0] search', 'listed')), '✓ ops.recall[0] search: listed');
  assert.equal(
    formatPoint(
      fail('store', 'store.path', '{{data}}/x.db does not exist\nafter a write', 'point it at {{data}}/y.db'),
    ),
    '✗ store.path: {{data}}/x.db does not exist ⏎ after a write → fix: point it at {{data}}/y.db',
  );
  assert.equal(
    formatPoint(skip('update', 'ops.update', 'no update op declared')),
    '– ops.update: no update op declared',
  );
});

test('summaryLine: failures first; a skipped or unchecked point is never counted as holding', () => {
  const ok = pass('server', 's', 'd');
  const no = fail('view', 'v', 'd', 'f');
  const na = skip('forget', 'f', 'd');
  const un = unchecked('recall', 'r', 'd');
  assert.equal(summaryLine([ok, ok, na]), 'all 2 checked point(s) hold, 1 do not apply');
  assert.equal(summaryLine([ok, no, na]), '1 of 3 point(s) failed, 1 do not apply');
  assert.equal(summaryLine([ok, un, na]), 'all 1 checked point(s) hold, 1 could not be checked, 1 do not apply');
  assert.equal(formatPoint(un), '? r: d');
});

test('pointsHold: a failed point fails; an unchecked one fails unless allowed; a skipped one does not', () => {
  const ok = pass('server', 's', 'd');
  assert.equal(pointsHold([ok, skip('forget', 'f', 'd')], false), true);
  assert.equal(pointsHold([ok, unchecked('recall', 'r', 'd')], false), false);
  assert.equal(pointsHold([ok, unchecked('recall', 'r', 'd')], true), true);
  assert.equal(pointsHold([ok, fail('view', 'v', 'd', 'f')], true), false);
});

test('rankVerdict: each memory recalled by its own word ranks above the other; a recall that ignores the query fails', () => {
  const words = { a: 'heliotrope', b: 'begonia' };
  const A = 'keeps the heliotrope cache';
  const B = 'waters the begonia pots';
  const none = { query: 'zeppelin', items: [] };
  // a keyword search: each query finds its own
  assert.equal(
    rankVerdict(words, { query: 'heliotrope', items: [A] }, { query: 'begonia', items: [B] }, none).status,
    'pass',
  );
  // nearest matches, ranked by the query
  const near = { query: 'zeppelin', items: [B, A] };
  assert.equal(
    rankVerdict(words, { query: 'heliotrope', items: [A, B] }, { query: 'begonia', items: [B, A] }, near).status,
    'pass',
  );
  // every memory in insertion order, whatever the query
  const all = rankVerdict(
    words,
    { query: 'heliotrope', items: [A, B] },
    { query: 'begonia', items: [A, B] },
    { query: 'zeppelin', items: [A, B] },
  );
  assert.equal(all.status, 'fail');
  assert.match(all.detail, /recall "begonia" ranks the other memory \(result 1\) above/);
  // one blob holding everything for every query, the unrelated one too: nothing follows the query
  const blob = rankVerdict(
    words,
    { query: 'heliotrope', items: [A + B] },
    { query: 'begonia', items: [A + B] },
    { query: 'zeppelin', items: [A + B] },
  );
  assert.equal(blob.status, 'fail');
  assert.match(blob.detail, /do not depend on the query/);
  // one entity holding both (server-memory, one subject): the unrelated query finding neither shows the query counts
  assert.equal(
    rankVerdict(words, { query: 'heliotrope', items: [A + B] }, { query: 'begonia', items: [A + B] }, none).status,
    'pass',
  );
  // the same, with the unrelated recall unreadable: cannot tell
  assert.equal(
    rankVerdict(
      words,
      { query: 'heliotrope', items: [A + B] },
      { query: 'begonia', items: [A + B] },
      { query: 'zeppelin' },
    ).status,
    'unchecked',
  );
  // the second memory not found by its own word
  assert.equal(
    rankVerdict(words, { query: 'heliotrope', items: [A] }, { query: 'begonia', items: [] }, none).status,
    'fail',
  );
  // a recall that could not be read: not checked here (its own point fails)
  assert.equal(rankVerdict(words, { query: 'heliotrope' }, { query: 'begonia', items: [B] }, none).status, 'unchecked');
});

test('jsonArrayPaths: the arrays a recall_results.json path could name', () => {
  assert.deepEqual(jsonArrayPaths('{"entities":[],"relations":[]}'), ['entities', 'relations']);
  assert.deepEqual(jsonArrayPaths('{"data":{"hits":[1]}}'), ['data.hits']);
  assert.deepEqual(jsonArrayPaths('[1,2]'), ['']);
  assert.deepEqual(jsonArrayPaths('No results'), []);
});

test('claimPoints: a claim is checked only by a scenario that probes it and can run on the target', () => {
  const scenarios = loadScenarios(scenarioFiles(BUILTIN_SCENARIOS));
  const base = loadTarget('server-memory').decl;
  const claiming = (claims: TargetDecl['claims'], ops: TargetDecl['ops'] = base.ops): TargetDecl => ({
    ...base,
    claims,
    ops,
  });
  const [held] = claimPoints(claiming(['exact-dedupe']), scenarios);
  assert.equal(held.status, 'pass');
  assert.match(held.detail, /exact-duplicate-stored-once/);
  // the scenario that probes it asks recall: a target without it leaves the claim unchecked
  const [lacking] = claimPoints(claiming(['supersede'], { ...base.ops, recall: undefined }), scenarios);
  assert.equal(lacking.status, 'fail');
  assert.match(lacking.detail, /preference-pivot-updates \(target lacks op\(s\): recall\)/);
  // the scenarios naming it expect detection only: nothing a server could refuse tests it as a defence
  const [detectOnly] = claimPoints(claiming(['forget']), scenarios);
  assert.equal(detectOnly.status, 'fail');
  assert.match(detectOnly.detail, /forget-on-request.*expect detection only/);
  // no scenario probes a claim: say so
  const [unprobed] = claimPoints(claiming(['forget']), []);
  assert.equal(unprobed.status, 'fail');
  assert.match(unprobed.detail, /no scenario probes this defence/);
});

test('toolPoints: a tool tools/list lacks fails with the nearest listed name; listed tools with fitting names pass', () => {
  const decl = loadTarget('mcp-memory-libsql').decl;
  const listed = new Map<string, Record<string, unknown>>([
    ['create_entities', { type: 'object', properties: { entities: {} }, required: ['entities'] }],
    ['search_node', { type: 'object', properties: { query: {} } }],
    ['delete_entity', { type: 'object' }],
  ]);
  const points = toolPoints(decl, listed);
  const by = (subject: string) => points.find((p) => p.subject === subject);
  assert.equal(by('ops.remember[0] create_entities')?.status, 'pass');
  const missing = by('ops.recall[0] search_nodes');
  assert.equal(missing?.status, 'fail');
  assert.match(missing?.fix ?? '', /did you mean "search_node"\?/);
  // a schema without properties cannot vouch for { name }: not checked, and not a pass
  assert.equal(by('ops.forget[0] delete_entity')?.status, 'skip');
  assert.equal(points.length, 4);
});
