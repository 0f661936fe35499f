import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { snapshotStore, workingCopy, writeCallsTable } from '../../evidence/build.js';
import type { CallRecord } from '../../mcp/calls-log.js';
import type { TargetDecl } from '../../targets/schema.js';
import { messageOf } from '../../util/errors.js';

export interface ViewRun {
  /** `views.memories` or `views.extra.<name>` */
  field: string;
  name: string;
  columns?: string[];
  rows?: Record<string, unknown>[];
  /** SQLite's message when the view does not compile or run over this store */
  error?: string;
}

export interface StoreViews {
  views: ViewRun[];
  /** the store's tables and their columns, to name in a fix */
  tables: { name: string; columns: string[] }[];
}

/**
 * Every declared view run over a copy of the store as it is now (and the calls so far, which a
 * store-less target's views read), as the evidence builder does. Each view is run on its own, so
 * one that does not compile does not hide what the others return.
 */
export function runViews(decl: TargetDecl, storePath: string, calls: CallRecord[], scratchDir: string): StoreViews {
  const tmp = mkdtempSync(join(scratchDir, 'views-'));
  try {
    const pristine =
      decl.store.format === 'none' ? [] : snapshotStore(storePath, join(tmp, 'store'), decl.store.format);
    const db = new Database(':memory:');
    try {
      db.prepare('ATTACH DATABASE ? AS store').run(workingCopy(decl, storePath, pristine, join(tmp, 'work')));
      writeCallsTable(db, decl, calls);
      const declared: [string, string, string][] = [
        ['views.memories', 'memories', decl.views.memories],
        ...Object.entries(decl.views.extra).map(([n, sql]): [string, string, string] => [`views.extra.${n}`, n, sql]),
      ];
      const views = declared.map(([field, name, sql]): ViewRun => {
        try {
          db.exec(`CREATE TEMP VIEW "${name}" AS ${sql}`);
          const stmt = db.prepare(`SELECT * FROM "${name}"`);
          return {
            field,
            name,
            columns: stmt.columns().map((c) => c.name),
            rows: stmt.all() as Record<string, unknown>[],
          };
        } catch (e) {
          return { field, name, error: messageOf(e) };
        }
      });
      return { views, tables: storeTables(db) };
    } finally {
      db.close();
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

function storeTables(db: Database.Database): { name: string; columns: string[] }[] {
  const names = db
    .prepare("SELECT name FROM store.sqlite_master WHERE type IN ('table', 'view') ORDER BY name")
    .all() as { name: string }[];
  return names.map(({ name }) => ({ name, columns: columnsOf(db, name) }));
}

/** A table's columns; none for a virtual table whose module this SQLite lacks (sqlite-vec's vec0). */
function columnsOf(db: Database.Database, table: string): string[] {
  try {
    return (db.prepare(`PRAGMA store.table_info("${table.replace(/"/g, '""')}")`).all() as { name: string }[]).map(
      (c) => c.name,
    );
  } catch {
    return [];
  }
}
