import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, extname, join, relative } from 'node:path';
import Database from 'better-sqlite3';
import type { TargetDecl } from '../targets/schema.js';
import { clip } from '../util/text.js';
import { STORE_INTEGRITY_COLUMNS } from './schema.js';

/**
 * Whether the store opens and is well-formed as the run left it, file by file: what a user's
 * next session would find after a crash. Checked on copies, so the pristine snapshot stays as
 * the server left it (opening an SQLite file rolls back a hot journal, as the target's next
 * start would).
 */
export interface IntegrityRow {
  /** the store file, relative to the store's folder (a files store) or its name */
  file: string;
  format: string;
  /** what was checked: "PRAGMA integrity_check", "every line parses as JSON", … */
  checked: string;
  ok: boolean;
  detail: string;
}

/** How many problems a row names before it counts the rest. */
const SHOWN = 5;

const problems = (list: string[]) =>
  list.length > SHOWN ? `${list.slice(0, SHOWN).join('; ')}; and ${list.length - SHOWN} more` : list.join('; ');

/** Every non-blank line of a JSONL text parses as JSON. */
function jsonlRow(file: string, format: string, text: string): IntegrityRow {
  const bad: string[] = [];
  const lines = text.split('\n');
  let n = 0;
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    n++;
    try {
      JSON.parse(line);
    } catch (e) {
      bad.push(`line ${i + 1}: ${(e as Error).message} (${JSON.stringify(clip(line, 80))})`);
    }
  });
  return {
    file,
    format,
    checked: 'every line parses as JSON',
    ok: bad.length === 0,
    detail: bad.length ? `${bad.length} of ${n} line(s) do not parse: ${problems(bad)}` : `${n} line(s), each parses`,
  };
}

/**
 * An SQLite store, opened as its server would open it (with its journal or WAL copied beside),
 * and `PRAGMA integrity_check`. A file that does not open is a row that says why.
 */
function sqliteRow(main: string, siblings: string[], scratch: string): IntegrityRow {
  mkdirSync(scratch, { recursive: true });
  const row = { file: basename(main), format: 'sqlite', checked: 'PRAGMA integrity_check' };
  let db: Database.Database | undefined;
  try {
    for (const f of [main, ...siblings]) copyFileSync(f, join(scratch, basename(f)));
    db = new Database(join(scratch, basename(main)));
    const found = (db.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check);
    const ok = found.length === 1 && found[0] === 'ok';
    const tables = db.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table'").pluck().get() as number;
    return { ...row, ok, detail: ok ? `ok (${tables} table(s))` : problems(found) };
  } catch (e) {
    return { ...row, ok: false, detail: `the store does not open: ${(e as Error).message}` };
  } finally {
    db?.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** A file of a files store: JSON and JSONL files must parse; any other file is only read. */
function folderFileRow(path: string, rel: string): IntegrityRow {
  const ext = extname(path).toLowerCase();
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    return { file: rel, format: 'files', checked: 'the file reads', ok: false, detail: (e as Error).message };
  }
  if (ext === '.jsonl' || ext === '.ndjson') return jsonlRow(rel, 'files', text);
  if (ext !== '.json')
    return { file: rel, format: 'files', checked: 'the file reads', ok: true, detail: `${text.length} character(s)` };
  try {
    JSON.parse(text);
    return { file: rel, format: 'files', checked: 'the file parses as JSON', ok: true, detail: 'parses' };
  } catch (e) {
    return { file: rel, format: 'files', checked: 'the file parses as JSON', ok: false, detail: (e as Error).message };
  }
}

/**
 * Check the store from its pristine copies (`copies`, as snapshotStore made them in
 * `copiesDir`). `gone` says why a store that is not there should have been: it existed when a
 * kill step killed the server (a store never created is nothing to check: no rows).
 */
export function checkIntegrity(o: {
  format: TargetDecl['store']['format'];
  storePath: string;
  copies: string[];
  copiesDir: string;
  /** a folder to open SQLite copies in (removed after) */
  scratch: string;
  gone?: string;
}): IntegrityRow[] {
  const { format, storePath, copies, gone } = o;
  if (format === 'none') return [];
  if (format === 'files') {
    const root = join(o.copiesDir, basename(storePath));
    if (!copies.length && gone)
      return [{ file: basename(storePath), format, checked: 'the store exists', ok: false, detail: gone }];
    return copies.map((f) => folderFileRow(f, relative(root, f)));
  }
  const main = copies.find((f) => basename(f) === basename(storePath));
  if (!main)
    return gone ? [{ file: basename(storePath), format, checked: 'the store exists', ok: false, detail: gone }] : [];
  if (format === 'jsonl') return [jsonlRow(basename(main), format, readFileSync(main, 'utf8'))];
  return [
    sqliteRow(
      main,
      copies.filter((f) => f !== main && existsSync(f)),
      o.scratch,
    ),
  ];
}

/** The `store_integrity` table: one row per checked file (empty: nothing on disk was checked). */
export function writeIntegrityTable(db: Database.Database, rows: IntegrityRow[]): void {
  db.exec(`CREATE TABLE store_integrity (${STORE_INTEGRITY_COLUMNS.join(', ')})`);
  const ins = db.prepare(`INSERT INTO store_integrity VALUES (${STORE_INTEGRITY_COLUMNS.map(() => '?').join(', ')})`);
  rows.forEach((r, i) => ins.run(i + 1, r.file, r.format, r.checked, r.ok ? 1 : 0, r.detail));
}
