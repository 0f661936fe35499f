import { basename } from 'node:path';
import type { Evidence } from '../evidence/open.js';
import { scanFile, ScanError, textForms } from './scan.js';

/** Where a text was found: the canonical view, a column of a store table, or raw file bytes. */
export interface Sighting {
  layer: 'memories view' | 'store table' | 'raw bytes';
  where: string;
  rows?: number;
  /** the form it was found in, when not plain UTF-8 (e.g. json-escaped) */
  encoding?: string;
}

/** What the store search read: tables and columns, store files and their bytes, the encodings tried. */
export interface StoreScanned {
  columns: number;
  files: string[];
  bytes: number;
  encodings: string[];
  /** store files that could not be read, with why */
  unscanned: { label: string; why: string }[];
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * Search the canonical view, every column of every store table, and each store file's bytes,
 * for the text and the forms a store encodes it in (JSON escaping, latin1: see scan.ts). A
 * column search finds what SQLite keeps in overflow pages or compresses out of the raw bytes;
 * the byte scan finds what no table exposes (free pages, the WAL, a JSONL line that does not parse).
 */
export function findEverywhere(
  ev: Pick<Evidence, 'db' | 'storeFiles' | 'memoriesFromCalls'>,
  text: string,
  caseSensitive: boolean,
  scanned?: StoreScanned,
): Sighting[] {
  const { db, storeFiles } = ev;
  const found: Sighting[] = [];
  // a view rebuilt from the calls log keeps forgotten memories as history: only live rows are held
  const held = ev.memoriesFromCalls ? ' AND coalesce(is_deleted, 0) = 0' : '';
  const match = (expr: string) => (caseSensitive ? `instr(${expr}, ?) > 0` : `instr(lower(${expr}), lower(?)) > 0`);
  const forms = textForms(text);
  const tag = (encoding: string) => (encoding === 'utf-8' ? {} : { encoding });

  for (const f of forms) {
    const viewRows = db
      .prepare(`SELECT count(*) FROM memories WHERE ${match('CAST(content AS TEXT)')}${held}`)
      .pluck()
      .get(f.text) as number;
    if (viewRows > 0) {
      found.push({ layer: 'memories view', where: 'memories.content', rows: viewRows, ...tag(f.encoding) });
      break;
    }
  }

  const tables = db
    .prepare("SELECT name FROM store.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .pluck()
    .all() as string[];
  let columnCount = 0;
  for (const table of tables) {
    let columns: string[];
    try {
      columns = (db.prepare(`PRAGMA store.table_info(${quoteIdent(table)})`).all() as { name: string }[]).map(
        (c) => c.name,
      );
    } catch {
      continue; // a virtual table whose module this SQLite lacks: the raw byte scan still covers it
    }
    for (const col of columns) {
      columnCount++;
      for (const f of forms) {
        let rows: number;
        try {
          rows = db
            .prepare(
              `SELECT count(*) FROM store.${quoteIdent(table)} WHERE ${match(`CAST(${quoteIdent(col)} AS TEXT)`)}`,
            )
            .pluck()
            .get(f.text) as number;
        } catch {
          continue;
        }
        if (rows > 0) {
          found.push({ layer: 'store table', where: `${table}.${col}`, rows, ...tag(f.encoding) });
          break;
        }
      }
    }
  }

  const q = { text, caseSensitive };
  let bytes = 0;
  const unscanned: StoreScanned['unscanned'] = [];
  for (const file of storeFiles) {
    try {
      const r = scanFile(file, [q]);
      bytes += r.bytes;
      for (const encoding of r.hits.get(q) ?? [])
        found.push({ layer: 'raw bytes', where: basename(file), ...tag(encoding) });
    } catch (e) {
      if (!(e instanceof ScanError)) throw e;
      unscanned.push({ label: `store copy ${basename(file)}`, why: e.message });
    }
  }
  if (scanned)
    Object.assign(scanned, {
      columns: columnCount,
      files: storeFiles.map((f) => basename(f)),
      bytes,
      encodings: [...new Set(forms.map((f) => f.encoding))],
      unscanned,
    });
  else if (unscanned.length)
    throw new ScanError(`cannot scan ${unscanned.map((u) => `${u.label}: ${u.why}`).join('; ')}`);
  return found;
}

const as = (x: Sighting) => (x.encoding ? ` (${x.encoding})` : '');

export function describeSightings(s: Sighting[]): string {
  return s
    .map((x) =>
      x.layer === 'raw bytes'
        ? `raw bytes of ${x.where}${as(x)}`
        : `${x.where} (${x.rows} row${x.rows === 1 ? '' : 's'}${x.encoding ? `, ${x.encoding}` : ''})`,
    )
    .join('; ');
}
