// How `targets new` reads ids and result formats from real results, and where it finds the store.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inferCaptureId, inferRecallResults } from '../../../src/declare/draft/results.ts';
import { draftJsonFileView, markerPath, pickStore, placeholderPath } from '../../../src/declare/draft/store.ts';
import { locateStore } from '../../../src/declare/draft/locate.ts';
import type { Fixture } from '../../../src/fixture/fixture.ts';
import Database from 'better-sqlite3';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { draftName, parsePackageSpec } from '../../../src/declare/draft/package.ts';
import { redirectEnv } from '../../../src/declare/draft/env.ts';
import { targetSchema } from '../../../src/targets/schema.ts';

const decl = targetSchema.parse({
  name: 't',
  description: 't',
  server: { command: 'x' },
  store: { format: 'none' },
  views: { memories: 'SELECT 1' },
  ops: {},
});
const M = 'mk0123456789';

test('inferCaptureId: from a JSON key, from the literal text before a known id, or nothing', () => {
  assert.deepEqual(inferCaptureId('{"success": true, "id": "ab-12"}', []), {
    capture_id: '"id"\\s*:\\s*"([^"]+)"',
    id: 'ab-12',
  });
  assert.deepEqual(inferCaptureId('Stored memory #42 (fact)', ['42']), {
    capture_id: '^Stored memory #(\\d+)',
    id: '42',
  });
  assert.deepEqual(inferCaptureId('[{"name": "k-1", "entityType": "note"}]', ['k-1']).id, 'k-1');
  assert.deepEqual(inferCaptureId('ok', ['42']), {});
  // no store to name the id: a labelled one
  assert.deepEqual(inferCaptureId('✅ inserted!\n🆔 ID: 17\n📝 Text: x', []), { capture_id: 'ID: (\\d+)', id: '17' });
});

test('inferRecallResults: a JSON array, bulleted lines, blocks, and the empty form with {{query}}', () => {
  const misses = [
    { query: 'a b', text: 'No results found for: "a b"', ok: true },
    { query: 'c d', text: 'No results found for: "c d"', ok: true },
  ];
  const json = inferRecallResults(
    { query: M, text: JSON.stringify({ results: [{ id: 1, content: `x ${M}` }] }), ok: true },
    misses,
    M,
    decl,
  );
  assert.deepEqual(json.recall_results, { json: 'results', empty: { text: 'No results found for: "{{query}}"' } });
  const lines = inferRecallResults({ query: M, text: `Found 1:\n• [1] x ${M}`, ok: true }, misses, M, decl);
  assert.equal(lines.recall_results?.regex, '^\\s*•\\s.+$');
  // the memory on the line after its bullet: one block per result
  const block = inferRecallResults({ query: M, text: `Found 1:\n\n1. key\n   x ${M}`, ok: true }, misses, M, decl);
  assert.equal(block.recall_results?.regex, '^\\s*\\d+[.)]\\s.+(?:\\n(?!\\s*\\d+[.)]\\s).+)*');
  // empty answers that differ only by a number
  const timed = inferRecallResults(
    { query: M, text: `- x ${M}`, ok: true },
    [
      { query: 'a b', text: 'nothing (3 ms)', ok: true },
      { query: 'c d', text: 'nothing (12 ms)', ok: true },
    ],
    M,
    decl,
  );
  assert.deepEqual(timed.recall_results?.empty, { regex: 'nothing \\(\\d+(?:\\.\\d+)? ms\\)' });
});

test('inferRecallResults: a vector server that answers every query with its nearest match declares no empty form', () => {
  const answer = (q: string) =>
    `Found: 1 results\nQuery: ${q}\n\nTop Results:\n1. [ID: 1] Similarity: 0.6\n   Task: x ${M}\n`;
  const r = inferRecallResults(
    { query: M, text: answer(M), ok: true },
    ['a b', 'c d'].map((query) => ({ query, text: answer(query), ok: true })),
    M,
    decl,
  );
  assert.deepEqual(r.recall_results, { regex: '^\\s*\\d+[.)]\\s.+(?:\\n(?!\\s*\\d+[.)]\\s).+)*' });
  assert.match(r.notes[0], /nearest matches/);
});

test('inferRecallResults: a recall that misses the marker or is refused drafts nothing and says why', () => {
  const miss = [{ query: 'a b', text: '', ok: true }];
  const r = inferRecallResults({ query: M, text: 'nothing here', ok: true }, miss, M, decl);
  assert.equal(r.recall_results, undefined);
  assert.match(r.notes[0], /did not return the marker memory/);
  const refused = inferRecallResults({ query: M, text: 'boom', ok: false }, miss, M, decl);
  assert.match(refused.notes[0], /was refused/);
});

test('markerPath and placeholderPath', () => {
  assert.deepEqual(markerPath({ type: 'entity', observations: ['a', `b ${M}`] }, M), ['observations', 1]);
  assert.equal(markerPath({ a: 1 }, M), undefined);
  const vars = { fixture: '/f', data: '/f/data', home: '/f/home', project: '/f/project', tmp: '/f/tmp' };
  assert.equal(placeholderPath('/f/home/.x/db.sqlite', vars), '{{home}}/.x/db.sqlite');
  assert.equal(placeholderPath('/elsewhere/db', vars), undefined);
});

test('package spec, draft name and the storage variable that moves a stray store', () => {
  assert.deepEqual(parsePackageSpec('@ai-devkit/memory@0.20.1'), { npm: '@ai-devkit/memory', version: '0.20.1' });
  assert.deepEqual(parsePackageSpec('agentdb'), { npm: 'agentdb', version: undefined });
  assert.throws(() => parsePackageSpec('Not A Package'), /not an npm package name/);
  assert.equal(draftName('@ai-devkit/memory'), 'ai-devkit-memory');
  assert.equal(draftName('@allpepper/memory-bank-mcp'), 'memory-bank-mcp');
  assert.deepEqual(redirectEnv(['EXPORT_DIR', 'MEMORY_FILE_PATH'], '/pkg/dist/memory.jsonl'), {
    MEMORY_FILE_PATH: '{{data}}/memory.jsonl',
  });
  assert.deepEqual(redirectEnv(['DATA_DIR'], '/pkg/x.db'), { DATA_DIR: '{{data}}' });
  assert.equal(redirectEnv(['LOG_FILE'], '/pkg/x.db'), undefined);
});

test('pickStore: JSON lines over plain files; a plain file alone is a files store', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'memeval-pick-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const md = join(dir, 'note.md');
  const jl = join(dir, 'store.log');
  writeFileSync(md, `# note\n${M}\n`);
  writeFileSync(jl, `{"type":"entity","observations":["${M}"]}\n`);
  assert.deepEqual(pickStore([md, jl]), { format: 'jsonl', file: jl });
  assert.deepEqual(pickStore([md]), { format: 'files', file: md });
  assert.equal(pickStore([]), undefined);
});

test('inferCaptureId: the memory id over a constant the call passed, and never one two memories share', () => {
  // agent-orchestrator-mcp's answer: the agent id the call passed comes first, the learning's own id later
  const answer = (id: string) =>
    JSON.stringify({ success: true, learning: { agentId: 'memeval', title: 't', content: 'c', id } }, null, 2);
  assert.deepEqual(inferCaptureId(answer('learn_1'), [], answer('learn_2'), ['memeval']), {
    capture_id: '"id"\\s*:\\s*"([^"]+)"',
    id: 'learn_1',
  });
  // only ids named like another thing's: refused, and said why
  const agentOnly = (n: number) => JSON.stringify({ ok: true, agentId: 'memeval', n });
  const r = inferCaptureId(agentOnly(1), [], agentOnly(2), ['memeval']);
  assert.equal(r.capture_id, undefined);
  assert.match(r.refused ?? '', /"memeval", a value the remember call itself passes/);
  // the same id for two memories though no argument passed it (a fixed slot number)
  const slot = inferCaptureId('Saved to slot #1', [], 'Saved to slot #1');
  assert.equal(slot.capture_id, undefined);
  assert.match(slot.refused ?? '', /from the answers to two different memories/);
});

test('inferRecallResults: a server of nearest matches may return the other marker as a result of its own, never in the same one', () => {
  const O = 'mkffffffffff';
  const answer = JSON.stringify({ results: [{ content: `x ${M}` }, { content: `y ${O}` }] });
  const misses = [{ query: 'a b', text: answer, ok: true }];
  assert.deepEqual(inferRecallResults({ query: M, text: answer, ok: true }, misses, M, decl, [O]).recall_results, {
    json: 'results',
  });
  // both markers in one result: it does not split memories
  const blob = `Memories:\nx ${M} y ${O}`;
  assert.equal(
    inferRecallResults({ query: M, text: blob, ok: true }, [{ query: 'a b', text: '', ok: true }], M, decl, [O])
      .recall_results,
    undefined,
  );
});

test('draftJsonFileView: one row per record of the JSON file that holds the marker', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'memeval-json-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'learnings.json');
  const rec = (id: string, content: string) => ({ id, agentId: 'memeval', title: `t-${id}`, content, createdAt: 'x' });
  writeFileSync(file, JSON.stringify({ learn_1: rec('learn_1', `a ${M}`), learn_2: rec('learn_2', 'b') }, null, 2));
  const d = draftJsonFileView(file, 'learnings.json', M)!;
  assert.deepEqual(d.rowIds, ['learn_1', 't-learn_1']);
  const db = new Database(':memory:');
  t.after(() => db.close());
  db.exec("ATTACH ':memory:' AS store");
  db.exec('CREATE TABLE store.files (path TEXT PRIMARY KEY, dir TEXT, name TEXT, content TEXT, size INTEGER)');
  db.prepare('INSERT INTO store.files VALUES (?, ?, ?, ?, ?)').run(
    'learnings.json',
    '',
    'learnings.json',
    readFileSync(file, 'utf8'),
    0,
  );
  db.prepare('INSERT INTO store.files VALUES (?, ?, ?, ?, ?)').run('audit.json', '', 'audit.json', `["${M}"]`, 0);
  const rows = db.prepare(d.view).all() as Record<string, unknown>[];
  assert.deepEqual(
    rows.map((r) => [r.id, r.content, r.subject]),
    [
      ['learn_1', `a ${M}`, 't-learn_1'],
      ['learn_2', 'b', 't-learn_2'],
    ],
  );
  // an array of texts: each text a memory, its index the id
  writeFileSync(file, JSON.stringify({ memories: ['b', `a ${M}`] }));
  assert.match(draftJsonFileView(file, 'learnings.json', M)!.view, /json_each\(f\.content, '\$\.memories'\) j/);
  // not JSON: no view here (the file is a memory of its own)
  writeFileSync(file, `# note ${M}`);
  assert.equal(draftJsonFileView(file, 'learnings.json', M), undefined);
});

test('locateStore: a file that also holds the recall queries, or is named like a log, is not the store', (t) => {
  const root = mkdtempSync(join(tmpdir(), 'memeval-locate-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const vars = Object.fromEntries(
    ['data', 'home', 'project', 'tmp'].map((v) => [v, join(root, v)] as const).concat([['fixture', root]]),
  );
  const store = join(vars.project, '.agent-mcp');
  mkdirSync(store, { recursive: true });
  const fixture = { root, vars } as unknown as Fixture;
  const content = `memeval draft marker ${M}: tabs`;
  // the log sorts first and holds the marker as well
  writeFileSync(
    join(store, 'activity.json'),
    JSON.stringify([
      { tool: 'store', text: content },
      { tool: 'search', text: 'quartz xylophone' },
    ]),
  );
  // one line: a JSON document, not JSON lines
  writeFileSync(join(store, 'memories.json'), JSON.stringify({ m1: { id: 'm1', content } }));
  const found = locateStore(fixture, join(root, 'pkg'), new Set(), { token: M, content }, ['quartz xylophone']);
  assert.deepEqual(found.store, { format: 'files', path: '{{project}}/.agent-mcp' });
  assert.match(found.view ?? '', /WHERE f\.path = 'memories\.json'/);
  assert.match(
    found.notes.join('\n'),
    /not the store: \{\{project\}\}\/\.agent-mcp\/activity\.json \(it holds the recall queries too/,
  );
});
