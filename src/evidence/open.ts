import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { REQUIRED_VIEW_COLUMNS } from './schema.js';
import { MemevalError, messageOf } from '../util/errors.js';

/** What judges read. The store is a copy taken after the server exited; nothing writes to it. */
export interface Evidence {
  db: Database.Database;
  /** the cell directory the evidence lives in (absolute) */
  dir: string;
  /** pristine copies of every store file, for the raw byte scan */
  storeFiles: string[];
  /** views and tables to name in reports */
  viewSql: Record<string, string>;
  /**
   * The store lived in the server's process (store.format none): the memories view is rebuilt
   * from the calls log, so a row it marks deleted is memeval's record of a call, not something
   * the server still holds.
   */
  memoriesFromCalls?: boolean;
  /**
   * The store as the run left it failed its integrity check (store_integrity) and its views do
   * not open over it: why. Judges that read the store cannot run; the integrity judge reads
   * that table, so a store that does not open is its observation, not a broken evidence.
   */
  storeUnreadable?: string;
  /** false: a file of the store failed its integrity check (store_integrity); absent in older evidence */
  storeIntact?: boolean;
  close(): void;
}

export class EvidenceError extends MemevalError {
  constructor(message: string, options?: ErrorOptions) {
    super('EVIDENCE', message, options);
  }
}

export const EVIDENCE_DB = 'evidence.db';

interface Meta {
  store_db: string;
  store_files: string;
  target: string;
  /** absent in evidence written before it was recorded */
  store_format?: string;
  /** '0': a store file failed its integrity check (absent in older evidence) */
  store_intact?: string;
}

/**
 * Open a cell's evidence from anywhere: evidence.db keeps the view definitions and the store
 * copy's path (relative to the cell dir), so re-judging needs no replay of evidence.sql and no
 * particular working directory. The DB is opened read-only: judges never mutate evidence.
 */
export function openEvidence(cellDir: string): Evidence {
  const dir = resolve(cellDir);
  const file = join(dir, EVIDENCE_DB);
  if (!existsSync(file))
    throw new EvidenceError(`${file}: no evidence DB (the cell ended before its store was copied)`);
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const meta = Object.fromEntries(
      (db.prepare('SELECT key, value FROM evidence_meta').all() as { key: string; value: string }[]).map((r) => [
        r.key,
        r.value,
      ]),
    ) as unknown as Meta;
    const at = (p: string) => (isAbsolute(p) ? p : join(dir, p));
    const storeDb = at(meta.store_db);
    if (!existsSync(storeDb)) throw new EvidenceError(`${file}: the store copy ${storeDb} is missing`);
    try {
      db.prepare('ATTACH DATABASE ? AS store').run(storeDb); // inherits the connection's read-only flag
    } catch (e) {
      if (meta.store_intact !== '0') throw e;
      // a store file that is not a database at all: the integrity check says so
      const storeUnreadable = `the store does not open (${(e as Error).message}); see store_integrity`;
      const storeFiles = (JSON.parse(meta.store_files) as string[]).map(at);
      return { db, dir, storeFiles, viewSql: {}, storeUnreadable, storeIntact: false, close: () => db.close() };
    }
    const views = db.prepare('SELECT name, sql FROM evidence_views ORDER BY rowid').all() as {
      name: string;
      sql: string;
    }[];
    const viewSql: Record<string, string> = {};
    for (const v of views) {
      try {
        db.exec(`CREATE TEMP VIEW "${v.name}" AS ${v.sql}`);
        db.prepare(`SELECT * FROM "${v.name}" LIMIT 0`).all();
      } catch (e) {
        const why = `target ${meta.target}: views.${v.name === 'memories' ? 'memories' : `extra.${v.name}`}: ${messageOf(e)}`;
        // a store that failed its integrity check: the views' failure is what the check observed
        if (meta.store_intact === '0') {
          const storeUnreadable = `the store does not open (${why}); see store_integrity`;
          const storeFiles = (JSON.parse(meta.store_files) as string[]).map(at);
          return { db, dir, storeFiles, viewSql, storeUnreadable, storeIntact: false, close: () => db.close() };
        }
        throw new EvidenceError(why, { cause: e });
      }
      viewSql[v.name] = v.sql;
    }
    const cols = db
      .prepare('SELECT * FROM memories LIMIT 0')
      .columns()
      .map((c) => c.name);
    const missing = REQUIRED_VIEW_COLUMNS.filter((c) => !cols.includes(c));
    if (missing.length)
      throw new EvidenceError(
        `target ${meta.target}: views.memories lacks column(s) ${missing.join(', ')}; it must yield ${REQUIRED_VIEW_COLUMNS.join(', ')}`,
      );
    const storeFiles = (JSON.parse(meta.store_files) as string[]).map(at);
    return {
      db,
      dir,
      storeFiles,
      viewSql,
      memoriesFromCalls: meta.store_format === 'none',
      storeIntact: meta.store_intact === undefined ? undefined : meta.store_intact === '1',
      close: () => db.close(),
    };
  } catch (e) {
    db.close();
    throw e;
  }
}
