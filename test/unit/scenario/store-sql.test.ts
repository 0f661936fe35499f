import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scenarioSchema, type Scenario } from '../../../src/scenario/schema.js';
import {
  keyMatches,
  rowsMeet,
  storeSqlFor,
  storeSqlUnsupported,
  describeExpectRows,
} from '../../../src/scenario/store-sql.js';

function scenario(store_sql: unknown): Scenario {
  return scenarioSchema.parse({
    schema_version: 1,
    id: 'pins',
    title: 't',
    description: 'd',
    setup: { store_sql },
    deterministic: { well_behaved: [{ op: 'curate' }], violation: null },
    assertions: [{ kind: 'count', name: 'n', phase: 'both', op: 'eq', value: 1 }],
  });
}

test('keys: an exact target name, or a pattern with *', () => {
  assert.ok(keyMatches('memorix', 'memorix'));
  assert.ok(!keyMatches('memorix', 'memorix-provider'));
  assert.ok(keyMatches('memorix*', 'memorix-provider'));
  assert.ok(keyMatches('hostile-*', 'hostile-curate-wipe'));
  assert.ok(!keyMatches('hostile-*', 'memorix'));
});

test('statements: a string is one that must change at least one row; an exact key wins over a pattern', () => {
  const s = scenario({
    'memorix*': ['UPDATE a SET x = 1'],
    memorix: [{ sql: 'UPDATE b SET x = 1', expect_rows: 2 }],
  });
  assert.deepEqual(storeSqlFor(s, 'memorix'), [{ sql: 'UPDATE b SET x = 1', expect_rows: 2 }]);
  assert.deepEqual(storeSqlFor(s, 'memorix-provider'), [{ sql: 'UPDATE a SET x = 1', expect_rows: 'some' }]);
  assert.deepEqual(storeSqlFor(s, 'other'), []);
  assert.equal(storeSqlFor(scenario(undefined), 'memorix'), undefined);
});

test('row counts: some is at least one, a number is exact, zero rows never meet', () => {
  assert.ok(!rowsMeet(0, 'some'));
  assert.ok(rowsMeet(3, 'some'));
  assert.ok(!rowsMeet(0, 0));
  assert.ok(rowsMeet(2, 2));
  assert.ok(!rowsMeet(3, 2));
  assert.ok(!rowsMeet(0, 1));
  assert.equal(describeExpectRows(1), 'exactly 1 row(s)');
});

test('unsupported: a target with no key, or whose store is not SQLite; a scenario that pins nothing runs anywhere', () => {
  const s = scenario({ memorix: ['UPDATE a SET x = 1'] });
  assert.match(storeSqlUnsupported(s, 'memories-sh', 'sqlite') ?? '', /for memorix only/);
  assert.match(storeSqlUnsupported(s, 'memorix', 'jsonl') ?? '', /jsonl, not SQLite/);
  assert.equal(storeSqlUnsupported(s, 'memorix', 'sqlite'), undefined);
  assert.equal(storeSqlUnsupported(scenario(undefined), 'server-memory', 'jsonl'), undefined);
});

test('schema: an empty list, an empty statement, a bad key or a bad expect_rows is refused', () => {
  const bad = (v: unknown) => assert.throws(() => scenario(v));
  bad({ memorix: [] });
  bad({ memorix: [''] });
  bad({ 'Not A Name': ['UPDATE a SET x = 1'] });
  bad({ memorix: [{ sql: 'UPDATE a SET x = 1', expect_rows: -1 }] });
  bad({ memorix: [{ sql: 'UPDATE a SET x = 1', expect_rows: 'all' }] });
});

test('expect_rows: "any" and 0 are refused at load with the fix (a pin that changed no row proves nothing)', () => {
  for (const expect_rows of ['any', 0, -1, 'all']) {
    const r = scenarioSchema.safeParse({
      schema_version: 1,
      id: 'pins',
      title: 't',
      description: 'd',
      setup: { store_sql: { memorix: [{ sql: 'UPDATE a SET x = 1', expect_rows }] } },
      deterministic: { well_behaved: [{ op: 'curate' }], violation: null },
      assertions: [{ kind: 'count', name: 'n', phase: 'both', op: 'eq', value: 1 }],
    });
    assert.equal(r.success, false, String(expect_rows));
    const issue = r.error!.issues.find((i) => i.path.join('.') === 'setup.store_sql.memorix.0.expect_rows');
    assert.match(issue?.message ?? JSON.stringify(r.error!.issues), /1 or more\) or "some"/);
  }
  assert.deepEqual(scenario({ memorix: [{ sql: 'UPDATE a SET x = 1', expect_rows: 1 }] }).setup.store_sql, {
    memorix: [{ sql: 'UPDATE a SET x = 1', expect_rows: 1 }],
  });
});
