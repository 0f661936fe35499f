import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import Database from 'better-sqlite3';
import type { CallRecord } from '../mcp/recorder.js';
import type { TargetDecl } from '../targets/schema.js';

/** What judges read. The store is a copy taken after the server exited; nothing writes to it. */
export interface Evidence {
  db: Database.Database;
  /** pristine copies of every store file, for the raw byte scan */
  storeFiles: string[];
  /** views and tables to name in reports */
  viewSql: Record<string, string>;
  close(): void;
}

export const REQUIRED_VIEW_COLUMNS = ['id', 'content', 'category', 'source', 'is_deleted'];
const SQLITE_SIBLINGS = ['', '-wal', '-shm', '-journal'];

export class EvidenceError extends Error {}

/** Copy the store file and its SQLite siblings into `dir`; returns the copies. */
export function snapshotStore(storePath: string, dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  const copies: string[] = [];
  for (const suffix of SQLITE_SIBLINGS) {
    const src = storePath + suffix;
    if (!existsSync(src)) continue;
    const dst = join(dir, basename(src));
    copyFileSync(src, dst);
    copies.push(dst);
  }
  return copies;
}

/** Load a JSONL store into a table so the same SQL machinery reads it. */
function jsonlToSqlite(jsonlFile: string | undefined, dbFile: string): void {
  const db = new Database(dbFile);
  db.exec('CREATE TABLE records (line INTEGER PRIMARY KEY, type TEXT, json TEXT)');
  if (jsonlFile) {
    const insert = db.prepare('INSERT INTO records (line, type, json) VALUES (?, ?, ?)');
    const lines = readFileSync(jsonlFile, 'utf8').split('\n');
    db.transaction(() => {
      lines.forEach((line, i) => {
        if (!line.trim()) return;
        let type: string | null = null;
        let json = line;
        try {
          const parsed = JSON.parse(line);
          type = typeof parsed?.type === 'string' ? parsed.type : null;
        } catch {
          json = JSON.stringify({ unparsed: line });
        }
        insert.run(i + 1, type, json);
      });
    })();
  }
  db.close();
}

/**
 * Build the evidence DB in `cellDir`: pristine store copies under store/, a working copy
 * attached as `store`, the canonical `memories` view (and any extra views), and `calls`.
 */
export function buildEvidence(decl: TargetDecl, storePath: string, cellDir: string, calls: CallRecord[]): Evidence {
  const pristineDir = join(cellDir, 'store');
  const workDir = join(cellDir, 'work');
  // format none: nothing on disk; `store` is an empty DB and the views read the calls log
  const storeFiles = decl.store.format === 'none' ? [] : snapshotStore(storePath, pristineDir);
  mkdirSync(workDir, { recursive: true });

  let workDb: string;
  if (decl.store.format === 'none') {
    workDb = join(workDir, 'store.db');
    new Database(workDb).close();
  } else if (decl.store.format === 'jsonl') {
    workDb = join(workDir, 'store.db');
    jsonlToSqlite(storeFiles.find((f) => basename(f) === basename(storePath)), workDb);
  } else {
    const copies = snapshotStore(storePath, workDir);
    workDb = copies.find((f) => basename(f) === basename(storePath)) ?? join(workDir, basename(storePath));
    if (!copies.length) new Database(workDb).close();
  }
  // some servers create their store lazily: a store never created holds no memories
  const neverCreated = decl.store.format !== 'none' && !existsSync(storePath);

  const evidencePath = join(cellDir, 'evidence.db');
  const db = new Database(evidencePath);
  db.exec(`CREATE TABLE calls (
    seq INTEGER PRIMARY KEY, session INTEGER, stage TEXT, op TEXT, tool TEXT,
    arguments TEXT, result_text TEXT, is_error INTEGER, ms REAL, ts TEXT)`);
  const ins = db.prepare('INSERT INTO calls VALUES (?,?,?,?,?,?,?,?,?,?)');
  const reverse = toolToOp(decl);
  db.transaction(() => {
    calls.forEach((c, i) =>
      ins.run(i + 1, c.session, c.stage, c.op ?? reverse.get(c.tool) ?? null, c.tool, JSON.stringify(c.arguments), c.result_text, c.is_error ? 1 : 0, c.ms, c.ts),
    );
  })();
  db.prepare('ATTACH DATABASE ? AS store').run(workDb);

  const viewSql: Record<string, string> = neverCreated
    ? { memories: `SELECT ${['id', 'content', 'category', 'source', 'subject', 'created_at', 'is_deleted'].map((c) => `NULL AS ${c}`).join(', ')} WHERE 0` }
    : { memories: decl.views.memories, ...decl.views.extra };
  for (const [name, sql] of Object.entries(viewSql)) {
    try {
      db.exec(`CREATE TEMP VIEW "${name}" AS ${sql}`);
      db.prepare(`SELECT * FROM "${name}" LIMIT 0`).all();
    } catch (e) {
      db.close();
      throw new EvidenceError(`target ${decl.name}: views.${name === 'memories' ? 'memories' : `extra.${name}`}: ${(e as Error).message}`);
    }
  }
  const cols = db.prepare('SELECT * FROM memories LIMIT 0').columns().map((c) => c.name);
  const missing = REQUIRED_VIEW_COLUMNS.filter((c) => !cols.includes(c));
  if (missing.length) {
    db.close();
    throw new EvidenceError(`target ${decl.name}: views.memories lacks column(s) ${missing.join(', ')}; it must yield ${REQUIRED_VIEW_COLUMNS.join(', ')}`);
  }
  // the views are TEMP (they read an attached DB), so keep their SQL beside the DB for re-judging
  writeFileSync(
    join(cellDir, 'evidence.sql'),
    `-- sqlite3 evidence.db, then:\nATTACH DATABASE 'work/${basename(workDb)}' AS store;\n` +
      Object.entries(viewSql)
        .map(([n, s]) => `CREATE TEMP VIEW "${n}" AS ${s};`)
        .join('\n') +
      '\n',
  );
  return { db, storeFiles, viewSql, close: () => db.close() };
}

/** Which op a tool belongs to, for calls a real agent made (the harness labels its own). */
export function toolToOp(decl: TargetDecl): Map<string, string> {
  const map = new Map<string, string>();
  for (const [op, calls] of Object.entries(decl.ops)) for (const c of calls ?? []) if (!map.has(c.tool)) map.set(c.tool, op);
  return map;
}
