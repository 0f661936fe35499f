import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { pinStore, storeSqlProblems, storeSqlSyntaxProblems } from '../../../src/cell/store-sql.js';
import { scenarioSchema, type Scenario } from '../../../src/scenario/schema.js';
import { targetSchema } from '../../../src/targets/schema.js';
import { tempDir } from '../../helpers.js';

function store(t: { after: (fn: () => void) => void }): string {
  const file = join(tempDir(t, 'memeval-pin-'), 'store.db');
  const db = new Database(file);
  db.exec(
    "CREATE TABLE m (id TEXT, text TEXT, trust REAL); INSERT INTO m VALUES ('a', 'kept fact', 0.5), ('b', 'other', 0.5)",
  );
  db.close();
  return file;
}
const trust = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT id, trust FROM m ORDER BY id').all();
  } finally {
    db.close();
  }
};

test('pinStore: runs every statement, records the rows each changed, and keeps the pins', (t) => {
  const file = store(t);
  const r = pinStore(file, [
    { sql: "UPDATE m SET trust = 0.9 WHERE text = 'kept fact'", expect_rows: 1 },
    { sql: "INSERT INTO m VALUES ('c', 'new', 0.1)", expect_rows: 'some' },
  ]);
  assert.equal(r.problem, undefined);
  assert.deepEqual(
    r.records.map((x) => [x.rows, x.ok]),
    [
      [1, true],
      [1, true],
    ],
  );
  assert.deepEqual(trust(file), [
    { id: 'a', trust: 0.9 },
    { id: 'b', trust: 0.5 },
    { id: 'c', trust: 0.1 },
  ]);
});

test('pinStore: a statement that changes no row when some are expected is a problem, and nothing stays pinned', (t) => {
  const file = store(t);
  const r = pinStore(file, [
    { sql: "UPDATE m SET trust = 0.9 WHERE text = 'kept fact'", expect_rows: 1 },
    { sql: "UPDATE m SET trust = 0.9 WHERE text = 'reworded by the target'", expect_rows: 'some' },
  ]);
  assert.match(r.problem ?? '', /setup\.store_sql\[1\] changed 0 row\(s\).*at least 1 row/);
  assert.deepEqual(
    r.records.map((x) => [x.rows, x.ok]),
    [
      [1, true],
      [0, false],
    ],
  );
  assert.equal(r.records[0]!.rolled_back, true);
  // rolled back: the phase would otherwise run on half the pinned state
  assert.deepEqual(trust(file), [
    { id: 'a', trust: 0.5 },
    { id: 'b', trust: 0.5 },
  ]);
});

test('pinStore: an exact count, a failing statement, a read, a missing store, no row changed are problems', (t) => {
  const file = store(t);
  assert.match(pinStore(file, [{ sql: 'UPDATE m SET trust = 1', expect_rows: 1 }]).problem ?? '', /changed 2 row/);
  const failed = pinStore(file, [{ sql: 'UPDATE nope SET trust = 1', expect_rows: 'some' }]);
  assert.match(failed.problem ?? '', /failed against the store: no such table: nope/);
  assert.equal(failed.records[0]!.error, 'no such table: nope');
  assert.match(pinStore(file, [{ sql: 'SELECT 1', expect_rows: 'some' }]).problem ?? '', /reads rows/);
  // zero rows never meets a statement, whatever count it names: the phase would run on a store it did not describe
  for (const expect_rows of ['some', 0] as const)
    assert.match(
      pinStore(file, [{ sql: "UPDATE m SET trust = 1 WHERE id = 'z'", expect_rows }]).problem ?? '',
      /changed 0 row\(s\)/,
    );
  assert.match(
    pinStore(join(file, '..', 'gone.db'), [{ sql: 'UPDATE m SET trust = 1', expect_rows: 'some' }]).problem ?? '',
    /does not exist/,
  );
});

const scenario = (store_sql: unknown): Scenario =>
  scenarioSchema.parse({
    schema_version: 1,
    id: 'pins',
    title: 't',
    description: 'd',
    setup: { store_sql },
    deterministic: { well_behaved: [{ op: 'curate' }], violation: null },
    assertions: [{ kind: 'count', name: 'n', phase: 'both', op: 'eq', value: 1 }],
  });
const decl = (name: string, format: 'sqlite' | 'jsonl') =>
  targetSchema.parse({
    name,
    description: 'd',
    server: { command: 'x' },
    store: { format, path: '/tmp/x' },
    views: { memories: 'SELECT 1' },
    ops: {},
  });

test('load checks: an exact key on a store that is not SQLite, ambiguous patterns, syntax and several statements', () => {
  assert.match(
    storeSqlProblems(scenario({ 'server-memory': ['UPDATE a SET x = 1'] }), decl('server-memory', 'jsonl')).join(),
    /store is jsonl, not SQLite/,
  );
  // a pattern that reaches a JSONL target makes its cells unsupported, not the input bad
  assert.deepEqual(
    storeSqlProblems(scenario({ 'server-*': ['UPDATE a SET x = 1'] }), decl('server-memory', 'jsonl')),
    [],
  );
  assert.match(
    storeSqlProblems(
      scenario({ 'mem*': ['UPDATE a SET x = 1'], '*rix': ['UPDATE a SET x = 2'] }),
      decl('memorix', 'sqlite'),
    ).join(),
    /all name target memorix/,
  );
  const syntax = storeSqlSyntaxProblems(
    scenario({ memorix: ['UPDATE observations SET x = 1', 'UPDTE x', 'UPDATE a SET x = 1; DELETE FROM a'] }),
  );
  assert.equal(syntax.length, 2, syntax.join('\n'));
  assert.match(syntax[0]!, /setup\.store_sql\.memorix\[1\]: near "UPDTE": syntax error/);
  assert.match(syntax[1]!, /\[2\]: one statement per entry/);
});
