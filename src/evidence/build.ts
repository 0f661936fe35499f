import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, posix, relative, resolve, sep } from 'node:path';
import Database from 'better-sqlite3';
import type { CallRecord } from '../mcp/calls-log.js';
import type { TargetDecl } from '../targets/schema.js';
import { storeTableSql } from '../targets/store-tables.js';
import { EVIDENCE_DB, EvidenceError, openEvidence, type Evidence } from './open.js';
import { CALLS_COLUMNS, MEMORIES_COLUMNS, STORE_SQL_COLUMNS } from './schema.js';
import { writeProviderCalls } from './provider-calls.js';
import { writeAgentUsage, type AgentUsageInput } from './agent-usage.js';
import { hashEvidence } from './hash.js';
import { createRecallProbesTable } from './recall-probes.js';
import { checkIntegrity, writeIntegrityTable } from './integrity.js';
import { writeWritesTable, type WriteRow } from './writes.js';
import type { ProviderCall } from '../model/provider/types.js';

export { EvidenceError, openEvidence, type Evidence } from './open.js';

const SQLITE_SIBLINGS = ['', '-wal', '-shm', '-journal'];

type StoreFormat = TargetDecl['store']['format'];

/**
 * Copy the store into `dir`: the store file and its SQLite siblings, or for a files store every
 * file under its folder (into `dir`/<folder name>/, paths kept). Returns the copies.
 */
export function snapshotStore(storePath: string, dir: string, format: StoreFormat): string[] {
  mkdirSync(dir, { recursive: true });
  if (format === 'files') return snapshotFolder(storePath, join(dir, basename(storePath)));
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

function snapshotFolder(root: string, into: string): string[] {
  return filesUnder(root).map((rel) => {
    const dst = join(into, rel);
    mkdirSync(dirname(dst), { recursive: true });
    copyFileSync(join(root, rel), dst);
    return dst;
  });
}

/**
 * The regular files under a files store's folder, relative to it, sorted. Symlinks are not
 * followed: the store is what the server wrote, not what a link points at.
 */
function filesUnder(root: string): string[] {
  if (!existsSync(root)) return [];
  if (!statSync(root).isDirectory())
    throw new EvidenceError(`store ${root} is not a folder: store.format "files" needs the folder the files are in`);
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((rel) => lstatSync(join(root, rel)).isFile())
    .sort();
}

/**
 * How many bytes a store holds: its file's size, or for a files store the sum over the files
 * under its folder (a folder's own size says nothing of them); undefined when it is not there.
 */
export function storeBytes(path: string | undefined): number | undefined {
  if (!path) return undefined;
  try {
    if (!statSync(path).isDirectory()) return statSync(path).size;
    return filesUnder(path).reduce((n, rel) => n + statSync(join(path, rel)).size, 0);
  } catch {
    return undefined;
  }
}

/**
 * A DB memeval writes once and then only reads: no journal and no fsync. Each fsync would block
 * the one thread every worker's cell shares.
 */
function scratchDb(file: string): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  return db;
}

/** Load a JSONL store into a table so the same SQL machinery reads it. */
function jsonlToSqlite(jsonlFile: string | undefined, dbFile: string): void {
  const db = scratchDb(dbFile);
  db.exec(storeTableSql('jsonl')!);
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

/** Load a files store into store.files, one row per file, so views over it are SQL too. */
function folderToSqlite(root: string, dbFile: string): void {
  const db = scratchDb(dbFile);
  db.exec(storeTableSql('files')!);
  const insert = db.prepare('INSERT INTO files (path, dir, name, content, size) VALUES (?, ?, ?, ?, ?)');
  db.transaction(() => {
    for (const rel of filesUnder(root)) {
      const bytes = readFileSync(join(root, rel));
      const path = rel.split(sep).join('/');
      const dir = posix.dirname(path);
      insert.run(path, dir === '.' ? '' : dir, posix.basename(path), bytes.toString('utf8'), bytes.length);
    }
  })();
  db.close();
}

/** Make a working SQLite copy of the store in `workDir` that the canonical views read. */
export function workingCopy(decl: TargetDecl, storePath: string, pristine: string[], workDir: string): string {
  mkdirSync(workDir, { recursive: true });
  if (decl.store.format === 'none') {
    // nothing on disk: `store` is an empty DB and the views read the calls log
    const db = join(workDir, 'store.db');
    new Database(db).close();
    return db;
  }
  if (decl.store.format === 'files') {
    // like a SQLite store, read from the store itself (the seed check reads it mid-cell too)
    const db = join(workDir, 'store.db');
    folderToSqlite(storePath, db);
    return db;
  }
  if (decl.store.format === 'jsonl') {
    const db = join(workDir, 'store.db');
    jsonlToSqlite(
      pristine.find((f) => basename(f) === basename(storePath)),
      db,
    );
    return db;
  }
  const copies = snapshotStore(storePath, workDir, decl.store.format);
  const db = copies.find((f) => basename(f) === basename(storePath)) ?? join(workDir, basename(storePath));
  if (!copies.length) new Database(db).close();
  return db;
}

const EMPTY_MEMORIES = `SELECT ${MEMORIES_COLUMNS.map((c) => `NULL AS ${c}`).join(', ')} WHERE 0`;

/** Evidence just written, with the sha256 of each of its files (see hash.ts). */
export type BuiltEvidence = Evidence & { sha256: Record<string, string> };

/** What a cell adds to its evidence beyond the store and the calls (the lifecycle's own records). */
export interface EvidenceExtras {
  /** every write op memeval issued and how the target answered it (the `writes` table) */
  writes?: WriteRow[];
  /** why the store should be there although it is not: it existed when a kill step killed its server */
  gone?: string;
}

/**
 * Build the evidence in `cellDir`: pristine store copies under store/, a working copy under
 * work/, and evidence.db holding the `calls` table, the view definitions and where the store
 * copy is, so that openEvidence() reopens it from anywhere. Also writes evidence.sql for people
 * using the sqlite3 shell (absolute paths: it works from any directory).
 */
export function buildEvidence(
  decl: TargetDecl,
  storePath: string,
  cellDir: string,
  calls: CallRow[],
  providerCalls?: ProviderCall[],
  storeSql?: PinRecord[],
  agent?: AgentUsageInput,
  extras: EvidenceExtras = {},
): BuiltEvidence {
  const dir = resolve(cellDir);
  const storeFiles =
    decl.store.format === 'none' ? [] : snapshotStore(storePath, join(dir, 'store'), decl.store.format);
  // before the working copy is read: whether the store opens is what a judge observes, not a build error
  const integrity = checkIntegrity({
    format: decl.store.format,
    storePath,
    copies: storeFiles,
    copiesDir: join(dir, 'store'),
    scratch: join(dir, 'integrity'),
    gone: existsSync(storePath) ? undefined : extras.gone,
  });
  const workDb = workingCopy(decl, storePath, storeFiles, join(dir, 'work'));
  // some servers create their store lazily: a store never created holds no memories
  const viewSql: Record<string, string> =
    decl.store.format === 'none' || existsSync(storePath)
      ? { memories: decl.views.memories, ...decl.views.extra }
      : { memories: EMPTY_MEMORIES };

  const db = scratchDb(join(dir, EVIDENCE_DB));
  try {
    writeCallsTable(db, decl, calls);
    db.exec('CREATE TABLE evidence_meta (key TEXT PRIMARY KEY, value TEXT)');
    db.exec('CREATE TABLE evidence_views (name TEXT PRIMARY KEY, sql TEXT)');
    if (providerCalls) writeProviderCalls(db, providerCalls);
    // filled by the judge stage's probes (cell/probes.ts), after this snapshot
    createRecallProbesTable(db);
    writeStoreSqlTable(db, storeSql ?? []);
    writeIntegrityTable(db, integrity);
    writeWritesTable(db, extras.writes ?? []);
    if (agent) writeAgentUsage(db, agent);
    db.transaction(() => {
      const meta = db.prepare('INSERT INTO evidence_meta VALUES (?, ?)');
      meta.run('store_db', relative(dir, workDb));
      meta.run('store_files', JSON.stringify(storeFiles.map((f) => relative(dir, f))));
      meta.run('target', decl.name);
      meta.run('store_path', storePath);
      meta.run('store_format', decl.store.format);
      // 0: a file of the store failed its check, so views over it may not open (open.ts reads this)
      meta.run('store_intact', integrity.every((r) => r.ok) ? '1' : '0');
      const view = db.prepare('INSERT INTO evidence_views VALUES (?, ?)');
      for (const [name, sql] of Object.entries(viewSql)) view.run(name, sql);
    })();
  } finally {
    db.close();
  }
  writeFileSync(
    join(dir, 'evidence.sql'),
    `-- sqlite3 ${join(dir, EVIDENCE_DB)} -init ${join(dir, 'evidence.sql')}\nATTACH DATABASE '${workDb.replace(/'/g, "''")}' AS store;\n` +
      Object.entries(viewSql)
        .map(([n, s]) => `CREATE TEMP VIEW "${n}" AS ${s};`)
        .join('\n') +
      '\n',
  );
  // before any judge opens it: what rejudge checks the files against
  const sha256 = hashEvidence(dir);
  return { ...openEvidence(dir), sha256 };
}

/** One `setup.store_sql` statement as it ran (the cell result's StoreSqlRecord, read structurally). */
export interface PinRecord {
  index: number;
  sql: string;
  expect_rows: number | string;
  rows: number | null;
  ok: boolean;
  error?: string;
}

/**
 * The `store_sql` table: each `setup.store_sql` statement run before the phase, with the rows it
 * changed (empty when the scenario pins nothing on this target). Always there, so an assertion
 * may read it on any target.
 */
export function writeStoreSqlTable(db: Database.Database, records: PinRecord[]): void {
  db.exec(`CREATE TABLE store_sql (${STORE_SQL_COLUMNS.join(', ')})`);
  const ins = db.prepare(`INSERT INTO store_sql VALUES (${STORE_SQL_COLUMNS.map(() => '?').join(', ')})`);
  for (const r of records) ins.run(r.index, r.sql, String(r.expect_rows), r.rows, r.ok ? 1 : 0, r.error ?? null);
}

/** A recall call's answer read as results (cell/evidence.ts reads it; evidence/ does not itemise). */
export interface RecallReading {
  items: string[] | null;
  unreadable: string | null;
}

/** A call with, for a recall, how its answer reads as results. */
export type CallRow = CallRecord & { recall?: RecallReading };

/** The `calls` table: every MCP message that crossed the recording point. */
export function writeCallsTable(db: Database.Database, decl: TargetDecl, calls: CallRow[]): void {
  db.exec(`CREATE TABLE calls (seq INTEGER PRIMARY KEY, session INTEGER, stage TEXT, method TEXT, op TEXT, op_call INTEGER, tool TEXT,
    arguments TEXT, result_text TEXT, is_error INTEGER, ms REAL, ts TEXT, result_items TEXT, result_unreadable TEXT, killed INTEGER)`);
  const ins = db.prepare(
    `INSERT INTO calls (${CALLS_COLUMNS.join(', ')}) VALUES (${CALLS_COLUMNS.map(() => '?').join(',')})`,
  );
  const reverse = toolToOp(decl);
  db.transaction(() => {
    calls.forEach((c, i) =>
      ins.run(
        i + 1,
        c.session,
        c.stage,
        c.method ?? 'tools/call',
        c.op ?? reverse.get(c.tool) ?? null,
        c.op_call ?? null,
        c.tool,
        JSON.stringify(c.arguments),
        c.result_text,
        c.is_error ? 1 : 0,
        c.ms,
        c.ts,
        c.recall?.items ? JSON.stringify(c.recall.items) : null,
        c.recall?.unreadable ?? null,
        c.killed ? 1 : 0,
      ),
    );
  })();
}

/** Which op a tool belongs to, for calls a real agent made (the harness labels its own). */
export function toolToOp(decl: TargetDecl): Map<string, string> {
  const map = new Map<string, string>();
  for (const [op, calls] of Object.entries(decl.ops))
    for (const c of calls ?? []) if (!map.has(c.tool)) map.set(c.tool, op);
  return map;
}
