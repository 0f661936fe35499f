import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type Database from 'better-sqlite3';

/** Where a text was found: the canonical view, a column of a store table, or raw file bytes. */
export interface Sighting {
  layer: 'memories view' | 'store table' | 'raw bytes';
  where: string;
  rows?: number;
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Search the canonical view, every column of every store table, and each store file's bytes. */
export function findEverywhere(db: Database.Database, storeFiles: string[], text: string, caseSensitive: boolean): Sighting[] {
  const found: Sighting[] = [];
  const match = (expr: string) => (caseSensitive ? `instr(${expr}, ?) > 0` : `instr(lower(${expr}), lower(?)) > 0`);

  const viewRows = db.prepare(`SELECT count(*) FROM memories WHERE ${match('CAST(content AS TEXT)')}`).pluck().get(text) as number;
  if (viewRows > 0) found.push({ layer: 'memories view', where: 'memories.content', rows: viewRows });

  const tables = db
    .prepare("SELECT name FROM store.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .pluck()
    .all() as string[];
  for (const table of tables) {
    let columns: string[];
    try {
      columns = (db.prepare(`PRAGMA store.table_info(${quoteIdent(table)})`).all() as { name: string }[]).map((c) => c.name);
    } catch {
      continue; // a virtual table whose module this SQLite lacks: the raw byte scan still covers it
    }
    for (const col of columns) {
      let rows: number;
      try {
        rows = db
          .prepare(`SELECT count(*) FROM store.${quoteIdent(table)} WHERE ${match(`CAST(${quoteIdent(col)} AS TEXT)`)}`)
          .pluck()
          .get(text) as number;
      } catch {
        continue;
      }
      if (rows > 0) found.push({ layer: 'store table', where: `${table}.${col}`, rows });
    }
  }

  const needle = Buffer.from(text, 'utf8').toString('latin1');
  for (const file of storeFiles) {
    const hay = readFileSync(file).toString('latin1');
    const hit = caseSensitive ? hay.includes(needle) : hay.toLowerCase().includes(needle.toLowerCase());
    if (hit) found.push({ layer: 'raw bytes', where: basename(file) });
  }
  return found;
}

export function describeSightings(s: Sighting[]): string {
  return s.map((x) => (x.layer === 'raw bytes' ? `raw bytes of ${x.where}` : `${x.where} (${x.rows} row${x.rows === 1 ? '' : 's'})`)).join('; ');
}
