// The rows setup.store_sql pinned, and whether a store still holds them at a server start: a
// start that undoes a pin is named with the row and the column; a pin the phase itself changed
// before a restart is the phase's business.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { pinStore } from '../../../src/cell/store-sql.js';
import { PinWatch, pinsFile, readPins, writePins } from '../../../src/mcp/store-pins.js';
import { tempDir } from '../../helpers.js';

function store(t: { after: (fn: () => void) => void }): string {
  const file = join(tempDir(t, 'memeval-pins-'), 'store.db');
  const db = new Database(file);
  db.exec(
    "CREATE TABLE m (id TEXT PRIMARY KEY, text TEXT, trust REAL, vec BLOB); INSERT INTO m VALUES ('a', 'kept fact', 0.5, NULL), ('b', 'other', 0.5, NULL), ('c', 'gone soon', 0.5, NULL);" +
      "CREATE TABLE log (line TEXT); INSERT INTO log VALUES ('x');",
  );
  db.close();
  return file;
}
const exec = (file: string, sql: string) => {
  const db = new Database(file);
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
};

test('pinStore: the pinned rows are the ones the statements changed, by primary key or rowid', (t) => {
  const file = store(t);
  const r = pinStore(file, [
    { sql: "UPDATE m SET trust = 0.95 WHERE id = 'a'", expect_rows: 1 },
    { sql: "UPDATE m SET trust = 0.5 WHERE id = 'b'", expect_rows: 1 },
    { sql: "INSERT INTO m (id, text) VALUES ('d', 'a paraphrase')", expect_rows: 1 },
    { sql: "DELETE FROM m WHERE id = 'c'", expect_rows: 1 },
    { sql: "UPDATE log SET line = 'y'", expect_rows: 1 },
  ]);
  assert.equal(r.problem, undefined);
  assert.deepEqual(
    r.pins?.map((p) => [p.table, p.kind, p.key, p.values]),
    [
      ['m', 'updated', { id: 'a' }, { trust: 0.95 }],
      // b's trust was already 0.5: nothing of it to keep
      ['m', 'inserted', { id: 'd' }, { id: 'd', text: 'a paraphrase' }],
      ['m', 'deleted', { id: 'c' }, {}],
      ['log', 'updated', { rowid: 1 }, { line: 'y' }],
    ],
  );
  // kept as a file for the agent's proxy, read back the same
  const f = pinsFile(tempDir(t));
  writePins(f, { store: file, rows: r.pins! });
  assert.deepEqual(readPins(f), { store: file, rows: r.pins });
});

test('pinStore: a statement that writes no ordinary table cannot be checked later, and is refused', (t) => {
  const file = store(t);
  exec(file, 'CREATE VIRTUAL TABLE f USING fts5(text)');
  const r = pinStore(file, [{ sql: "INSERT INTO f (text) VALUES ('x')", expect_rows: 1 }]);
  assert.match(r.problem ?? '', /writes no ordinary table/);
});

test('PinWatch: a start that undoes a pin is named; a value left NULL may be filled; a pin the phase changed is not a lost one', (t) => {
  const file = store(t);
  const r = pinStore(file, [
    { sql: "UPDATE m SET trust = 0.95 WHERE id = 'a'", expect_rows: 1 },
    { sql: "INSERT INTO m (id, text) VALUES ('d', 'a paraphrase')", expect_rows: 1 },
    { sql: "DELETE FROM m WHERE id = 'c'", expect_rows: 1 },
  ]);
  const watch = new PinWatch(file, r.pins!);

  // a server that embeds new rows at start fills a column the pin left NULL: the pins hold
  let held = watch.before();
  exec(file, "UPDATE m SET vec = x'0102' WHERE id = 'd'");
  assert.equal(watch.after('server session 2', held), undefined);

  // a server that rebuilds its store at start puts every row back as it was
  held = watch.before();
  exec(
    file,
    "UPDATE m SET trust = 0.5 WHERE id = 'a'; DELETE FROM m WHERE id = 'd'; INSERT INTO m VALUES ('c', 'gone soon', 0.5, NULL)",
  );
  const why = watch.after('server session 3', held) ?? '';
  assert.match(
    why,
    /^setup\.store_sql: server session 3 undid the pins of setup\.store_sql\[0\], setup\.store_sql\[1\], setup\.store_sql\[2\] when it started: every row they changed is back as it was before them/,
  );
  assert.match(why, /m row id = 'a': trust is 0\.5, pinned 0\.95/);
  assert.match(why, /m row id = 'd' is gone \(the pins inserted it\)/);
  assert.match(why, /m row id = 'c' is back \(the pins deleted it\)/);

  // pinned again; a server that acts on the pinned rows at start (merges the paraphrase away, bumps
  // the trust it read) changed the pinned store, it did not undo it: that is the phase's to judge
  exec(
    file,
    "UPDATE m SET trust = 0.95 WHERE id = 'a'; INSERT INTO m (id, text) VALUES ('d', 'a paraphrase'); DELETE FROM m WHERE id = 'c'",
  );
  held = watch.before();
  assert.ok(held instanceof Set && held.size === 3);
  exec(file, "DELETE FROM m WHERE id = 'd'; UPDATE m SET text = 'kept fact [merged: a paraphrase]' WHERE id = 'a'");
  assert.equal(watch.after('server session 4', held), undefined);
  held = watch.before();
  exec(file, "UPDATE m SET trust = 0.96 WHERE id = 'a'");
  assert.equal(watch.after('server session 5', held), undefined);

  // the phase forgot the pinned rows before a restart: that restart has nothing of them to keep
  exec(file, "DELETE FROM m WHERE id = 'a'; INSERT INTO m VALUES ('c', 'gone soon', 0.5, NULL)");
  held = watch.before();
  assert.ok(held instanceof Set && held.size === 0);
  assert.equal(watch.after('server session 6', held), undefined);
});

test('PinWatch: a store that cannot be read is never "held"', (t) => {
  const file = store(t);
  const r = pinStore(file, [{ sql: "UPDATE m SET trust = 0.95 WHERE id = 'a'", expect_rows: 1 }]);
  const watch = new PinWatch(join(file, '..', 'moved.db'), r.pins!);
  assert.match(watch.after('server session 2', watch.before()) ?? '', /cannot be opened to check the pins/);
});
