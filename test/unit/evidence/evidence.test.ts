import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { buildEvidence, EvidenceError } from '../../../src/evidence/build.js';
import { runJudges } from '../../../src/judge/registry.js';
import { openEvidence } from '../../../src/evidence/open.js';
import { targetSchema } from '../../../src/targets/schema.js';
import { fillTemplate } from '../../../src/util/template.js';
import type { Assertion } from '../../../src/scenario/schema.js';
import { assertionSchema } from '../../../src/scenario/schema.js';
import { tempDir } from '../../helpers.js';

const sqliteTarget = (view: string) =>
  targetSchema.parse({
    name: 'sqlite-test',
    description: 'a SQLite store made by the test',
    server: { command: 'true' },
    store: { format: 'sqlite', path: '{{data}}/s.db' },
    views: { memories: view },
    ops: { remember: [{ tool: 'save', args: { text: '{{content}}' } }] },
  });

const assertions = (xs: unknown[]): Assertion[] => xs.map((x) => assertionSchema.parse(x));

test('SQLite store: memories view, soft deletes, and absent finds a secret in an audit table and raw bytes', async (t) => {
  const dir = tempDir(t);
  const storePath = join(dir, 'fixture', 's.db');
  mkdirSync(join(dir, 'fixture'));
  const db = new Database(storePath);
  db.exec(`CREATE TABLE items (id TEXT, body TEXT, deleted_at TEXT);
           CREATE TABLE audit (item_id TEXT, old_value TEXT);
           INSERT INTO items VALUES ('1', 'User prefers dark mode', NULL), ('2', 'old fact', '2026-01-01');
           INSERT INTO audit VALUES ('3', 'token sk_test_Residue123');`);
  db.close();
  const decl = sqliteTarget(
    'SELECT id, body AS content, NULL AS category, NULL AS source, NULL AS subject, NULL AS created_at, deleted_at IS NOT NULL AS is_deleted FROM store.items',
  );
  const ev = buildEvidence(decl, storePath, join(dir, 'cell'), []);
  t.after(() => ev.close());
  const out = await runJudges(
    assertions([
      { kind: 'count', name: 'live rows', phase: 'both', op: 'eq', value: 1 },
      { kind: 'count', name: 'all rows', phase: 'both', include_deleted: true, op: 'eq', value: 2 },
      { kind: 'count', name: 'case-insensitive', phase: 'both', contains: 'DARK MODE', op: 'eq', value: 1 },
      { kind: 'absent', name: 'no token', phase: 'both', text: 'sk_test_Residue123' },
      { kind: 'absent', name: 'never stored', phase: 'both', text: 'nothing-like-this' },
      { kind: 'sql', name: 'audit rows', phase: 'both', query: 'SELECT count(*) FROM store.audit', op: 'eq', value: 1 },
      { kind: 'sql', name: 'writes refused', phase: 'both', query: 'DELETE FROM calls', op: 'eq', value: 0 },
    ]),
    { evidence: ev },
  );
  const by = Object.fromEntries(out.map((x) => [x.name, x]));
  assert.equal(by['live rows'].outcome, 'pass');
  assert.equal(by['all rows'].outcome, 'pass');
  assert.equal(by['case-insensitive'].outcome, 'pass');
  assert.equal(by['no token'].outcome, 'fail');
  assert.match(String(by['no token'].actual), /audit\.old_value \(1 row\)/);
  assert.match(String(by['no token'].actual), /raw bytes of s\.db/);
  assert.doesNotMatch(String(by['no token'].actual), /memories\.content/);
  assert.equal(by['never stored'].outcome, 'pass');
  assert.equal(by['audit rows'].outcome, 'pass');
  assert.equal(by['writes refused'].outcome, 'error');
});

test('JSONL store is loaded into store.records and a view missing a required column is an error naming it', (t) => {
  const dir = tempDir(t);
  const storePath = join(dir, 'memory.jsonl');
  writeFileSync(
    storePath,
    JSON.stringify({ type: 'entity', name: 'user', entityType: 'p', observations: ['a', 'b'] }) + '\n{not json\n',
  );
  const decl = targetSchema.parse({
    name: 'jsonl-test',
    description: 'x',
    server: { command: 'true' },
    store: { format: 'jsonl', path: storePath },
    views: { memories: "SELECT o.value AS content FROM store.records r, json_each(r.json, '$.observations') o" },
    ops: {},
  });
  assert.throws(
    () => buildEvidence(decl, storePath, join(dir, 'cell'), []),
    (e: Error) => e instanceof EvidenceError && /lacks column\(s\) id, category, source, is_deleted/.test(e.message),
  );
});

test('templates keep the type of a whole placeholder and stringify embedded ones', () => {
  const out = fillTemplate({ a: '{{list}}', b: 'x-{{n}}', c: ['{{m.k}}'] }, { list: [1, 2], n: 3, m: { k: 'v' } });
  assert.deepEqual(out, { a: [1, 2], b: 'x-3', c: ['v'] });
  assert.throws(() => fillTemplate('{{missing}}', {}), /no value for \{\{missing\}\}/);
});

test('saved evidence reopens from any working directory, read-only, without replaying evidence.sql', async (t) => {
  const dir = tempDir(t);
  const storePath = join(dir, 'fixture', 's.db');
  mkdirSync(join(dir, 'fixture'));
  const db = new Database(storePath);
  db.exec("CREATE TABLE items (id TEXT, body TEXT); INSERT INTO items VALUES ('1', 'User prefers dark mode');");
  db.close();
  const decl = sqliteTarget(
    'SELECT id, body AS content, NULL AS category, NULL AS source, 0 AS is_deleted FROM store.items',
  );
  buildEvidence(decl, storePath, join(dir, 'run', 'cell'), []).close();
  const cwd = process.cwd();
  process.chdir('/');
  t.after(() => process.chdir(cwd));
  const ev = openEvidence(join(dir, 'run', 'cell'));
  t.after(() => ev.close());
  assert.equal(ev.db.prepare('SELECT count(*) FROM memories').pluck().get(), 1);
  assert.throws(() => ev.db.exec("INSERT INTO store.items VALUES ('2', 'x')"), /readonly/);
  const [j] = await runJudges(
    assertions([{ kind: 'count', name: 'one', phase: 'both', contains: 'dark mode', op: 'eq', value: 1 }]),
    { evidence: ev },
  );
  assert.equal(j.outcome, 'pass');
});

test('a store kept in the process (store.format none): a forgotten row of the calls-log view is no residue, a live one is', async (t) => {
  const dir = tempDir(t);
  const decl = targetSchema.parse({
    name: 'in-process-test',
    description: 'memories in the server process, view from the calls log',
    server: { command: 'true' },
    store: { format: 'none' },
    views: {
      memories:
        "SELECT CAST(json_extract(c.arguments, '$.text') AS TEXT) AS content, c.seq AS id, NULL AS category, NULL AS source, NULL AS subject, NULL AS created_at, EXISTS (SELECT 1 FROM calls d WHERE d.tool = 'delete' AND d.seq > c.seq AND json_extract(d.arguments, '$.text') = json_extract(c.arguments, '$.text')) AS is_deleted FROM calls c WHERE c.tool = 'save'",
    },
    ops: { remember: [{ tool: 'save', args: { text: '{{content}}' } }] },
  });
  const call = (seq: number, tool: string, text: string) => ({
    seq,
    session: 0,
    stage: 'step',
    op: null,
    tool,
    arguments: { text },
    result_text: 'ok',
    is_error: false,
    ms: 1,
    ts: '',
  });
  const ev = buildEvidence(decl, join(dir, 'none'), join(dir, 'cell'), [
    call(1, 'save', 'token sk_test_Forgotten1'),
    call(2, 'save', 'token sk_test_Kept2'),
    call(3, 'delete', 'token sk_test_Forgotten1'),
  ]);
  t.after(() => ev.close());
  const out = await runJudges(
    assertions([
      { kind: 'absent', name: 'forgotten', phase: 'both', text: 'sk_test_Forgotten1' },
      { kind: 'absent', name: 'kept', phase: 'both', text: 'sk_test_Kept2' },
    ]),
    { evidence: ev },
  );
  const by = Object.fromEntries(out.map((x) => [x.name, x]));
  // the deleted row is memeval's record of a call, not something the server still holds
  assert.equal(by['forgotten'].outcome, 'pass', String(by['forgotten'].actual));
  assert.equal(by['kept'].outcome, 'fail');
  assert.match(String(by['kept'].actual), /memories\.content \(1 row\)/);
});
