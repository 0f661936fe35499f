// The reference server's SQLite store: one table, no full-text index, no history or audit table,
// and secure_delete on, so a forgotten memory leaves no bytes behind in the file (its pages are
// zeroed). The rollback journal (not WAL) is deleted at each commit, so no side file keeps old
// pages either. Several server processes may share the file: every write is one IMMEDIATE
// transaction and a busy store is waited for.
//
// memories: id, text, category, subject, source, namespace ('' unless a write names a project), status (active | expired | superseded | merged),
// merged_into, pinned, trust, recalls, created_at, updated_at (ISO, from the process's wall
// clock), embedding (float32, null when the provider gave none). pinned, trust and recalls are
// set by no tool: they are what a curator weighs, and what a scenario's setup.store_sql pins.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

// memeval's own dependency, resolved from the package this file ships in
const { default: Database } = await import('better-sqlite3');

/** the one table, as the server creates it (its CLI's doctor compares a store against it) */
export const SCHEMA = `CREATE TABLE IF NOT EXISTS memories (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  text TEXT NOT NULL,
  category TEXT,
  subject TEXT,
  source TEXT,
  namespace TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL DEFAULT 'active',
  merged_into INTEGER,
  pinned INTEGER NOT NULL DEFAULT 0,
  trust REAL NOT NULL DEFAULT 0.5,
  recalls INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  embedding BLOB
)`;

/** every status a row may have; only 'active' is live */
export const STATUSES = ['active', 'expired', 'superseded', 'merged'];

const now = () => new Date().toISOString();
const blob = (v) => (v ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : null);
const vector = (b) => (b ? new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)) : null);
const row = (r) => r && { ...r, id: String(r.id), embedding: vector(r.embedding) };

export class Store {
  constructor(path) {
    mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path, { timeout: 15_000 });
    this.db.pragma('journal_mode = DELETE');
    this.db.pragma('secure_delete = ON');
    // a commit is safe from a crash of this process once the OS has it; only an OS crash could
    // lose it, and no fixture outlives that. Syncing each write to disk made seeding 5x slower.
    this.db.pragma('synchronous = OFF');
    this.db.exec(SCHEMA);
  }

  close() {
    if (this.db.open) this.db.close();
  }

  /** Run fn in one write transaction, taken before it reads, so another process cannot slip in between. */
  write(fn) {
    return this.db.transaction(fn).immediate();
  }

  /** Every active memory, oldest first; with a namespace, only that project's. */
  live(namespace) {
    const all = this.db.prepare("SELECT * FROM memories WHERE status = 'active' ORDER BY id").all().map(row);
    return namespace === undefined ? all : all.filter((m) => m.namespace === namespace);
  }

  get(id) {
    return row(this.db.prepare('SELECT * FROM memories WHERE id = ?').get(Number(id)));
  }

  insert(m) {
    const at = now();
    const r = this.db
      .prepare(
        'INSERT INTO memories (text, category, subject, source, namespace, trust, created_at, updated_at, embedding) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        m.text,
        m.category ?? null,
        m.subject ?? null,
        m.source ?? null,
        m.namespace ?? '',
        m.trust ?? 0.5,
        at,
        at,
        blob(m.embedding),
      );
    return String(r.lastInsertRowid);
  }

  /** Replace a memory's text (and vector) in place: the old text is gone, not kept beside it. */
  replace(id, text, embedding) {
    return this.db
      .prepare("UPDATE memories SET text = ?, embedding = ?, updated_at = ? WHERE id = ? AND status = 'active'")
      .run(text, blob(embedding), now(), Number(id)).changes;
  }

  /** Retire a memory but keep it: expired by age, superseded by a contradiction, merged by the curator. */
  retire(id, status, mergedInto = null) {
    return this.db
      .prepare("UPDATE memories SET status = ?, merged_into = ?, updated_at = ? WHERE id = ? AND status = 'active'")
      .run(status, mergedInto === null ? null : Number(mergedInto), now(), Number(id)).changes;
  }

  /** Forget: the row is deleted, and secure_delete zeroes the bytes it held. */
  forget(id) {
    return this.db.prepare('DELETE FROM memories WHERE id = ?').run(Number(id)).changes;
  }

  countRecalls(ids) {
    const up = this.db.prepare('UPDATE memories SET recalls = recalls + 1 WHERE id = ?');
    for (const id of ids) up.run(Number(id));
  }
}
