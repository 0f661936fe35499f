import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import Database from 'better-sqlite3';

/** Files bigger than this are not searched for the marker (a model, a media cache). */
const MAX_SCAN_BYTES = 256 * 1024 * 1024;

/** Every file under `dir` (node_modules left out). */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(d, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'node_modules') walk(p);
      } else if (e.isFile()) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

/** Every file under `dir` whose bytes hold `marker` (node_modules left out). */
export function filesHolding(dir: string, marker: string): string[] {
  const needle = Buffer.from(marker, 'utf8');
  return filesUnder(dir).filter((p) => {
    try {
      return statSync(p).size <= MAX_SCAN_BYTES && readFileSync(p).includes(needle);
    } catch {
      // a file that went away or cannot be read holds nothing we can declare
      return false;
    }
  });
}

export function isSqlite(file: string): boolean {
  const head = Buffer.alloc(16);
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    readSync(fd, head, 0, 16, 0);
    return head.toString('latin1') === 'SQLite format 3\0';
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export type FoundStore =
  { format: 'sqlite'; file: string } | { format: 'jsonl'; file: string } | { format: 'files'; file: string };

/**
 * Which of the files holding the marker is the store: a SQLite database (its `-wal` counts as
 * the database), else a JSONL file, else the first other file (a store of plain files).
 */
export function pickStore(files: string[]): FoundStore | undefined {
  const dbs = files
    .map((f) => f.replace(/-(wal|journal)$/, ''))
    .filter((f, i, all) => all.indexOf(f) === i && existsSync(f) && isSqlite(f));
  if (dbs.length) return { format: 'sqlite', file: dbs[0] };
  const jsonl = files.find((f) => /\.(jsonl|ndjson)$/.test(f) || jsonLines(f));
  if (jsonl) return { format: 'jsonl', file: jsonl };
  return files.length ? { format: 'files', file: files[0] } : undefined;
}

/** A file whose every non-empty line is a JSON object (a `.json` file of one line is one document, not lines). */
function jsonLines(file: string): boolean {
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim());
  if (!lines.length || (lines.length === 1 && file.endsWith('.json'))) return false;
  try {
    return lines.every((l) => {
      const v: unknown = JSON.parse(l);
      return v !== null && typeof v === 'object' && !Array.isArray(v);
    });
  } catch {
    return false;
  }
}

/** An absolute path inside the fixture as a declaration's placeholder path ({{data}}/x.db). */
export function placeholderPath(file: string, vars: Record<string, string>): string | undefined {
  // the most specific dir first: data, home, project and tmp all live under the fixture root
  for (const name of ['data', 'home', 'project', 'tmp', 'fixture']) {
    const dir = vars[name];
    if (!dir) continue;
    const rel = relative(dir, file);
    if (rel && !rel.startsWith('..') && !rel.startsWith('/')) return `{{${name}}}/${rel}`;
  }
  return undefined;
}

/** Column names that say what a column of the memories table holds. */
const COLUMN_NAMES: Record<string, string[]> = {
  id: ['id', 'uuid', 'memory_id', 'memoryid', 'key'],
  category: ['category', 'kind', 'memory_type', 'entity_type', 'entitytype', 'type'],
  source: ['source', 'channel', 'origin'],
  subject: ['subject', 'key', 'title', 'entity_name', 'entityname', 'name', 'topic'],
  created_at: ['created_at', 'createdat', 'created', 'timestamp', 'ts', 'inserted_at', 'date'],
};
/** Tables that keep history or indexes of memories rather than the memories themselves. */
const SIDE_TABLE =
  /(history|change|audit|log|event|fts|queue|vec|embedding|index|_data|_idx|_content|_docsize|_config)/i;
/** A file named like a log of what happened rather than the memories (audit.json, activity.log). */
export const LOG_NAME = /(history|audit|log|event|activity|journal)/i;

const q = (name: string) => `"${name.replace(/"/g, '""')}"`;

export interface SqliteDraft {
  table: string;
  view: string;
  /** the marker row's id and name, as the view's id and subject columns give them: what a remember's result may name */
  rowIds: string[];
  /** tables that also hold the marker (history, FTS): candidates for extra views */
  alsoIn: string[];
  notes: string[];
}

/**
 * Read a SQLite store (a copy, so a leftover WAL is replayed without touching the original) for
 * the table holding the marker, and draft the `memories` view from its columns' names.
 * `capturedId` (the id the remember's result named) picks the id column where one holds it.
 */
export function draftSqliteView(
  file: string,
  marker: string,
  content: string,
  reads: string[] = [],
): SqliteDraft | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'memeval-draft-db-'));
  try {
    const copy = join(dir, basename(file));
    for (const suffix of ['', '-wal', '-shm'])
      if (existsSync(file + suffix)) copyFileSync(file + suffix, copy + suffix);
    const db = new Database(copy, { fileMustExist: true });
    try {
      return findMarkerTable(db, marker, content, reads);
    } finally {
      db.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Whether any column of a table holds one of `texts`: the queries recalls sent, which only a log of calls keeps. */
function holdsAny(db: Database.Database, table: string, columns: string[], texts: string[]): boolean {
  return texts.some((text) =>
    columns.some((c) => {
      try {
        return Boolean(
          db.prepare(`SELECT 1 FROM ${q(table)} WHERE instr(CAST(${q(c)} AS TEXT), ?) > 0 LIMIT 1`).get(text),
        );
      } catch {
        return false;
      }
    }),
  );
}

function findMarkerTable(
  db: Database.Database,
  marker: string,
  content: string,
  reads: string[],
): SqliteDraft | undefined {
  const tables = db
    .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    .all() as { name: string; sql: string | null }[];
  const hits: {
    table: string;
    column: string;
    exact: boolean;
    row: Record<string, unknown>;
    virtual: boolean;
    log: boolean;
  }[] = [];
  for (const t of tables) {
    const virtual = /^\s*CREATE\s+VIRTUAL/i.test(t.sql ?? '');
    let cols: { name: string }[];
    try {
      cols = db.prepare(`PRAGMA table_info(${q(t.name)})`).all() as { name: string }[];
    } catch {
      continue;
    }
    for (const c of cols) {
      try {
        const row = db
          .prepare(`SELECT * FROM ${q(t.name)} WHERE instr(CAST(${q(c.name)} AS TEXT), ?) > 0 LIMIT 1`)
          .get(marker) as Record<string, unknown> | undefined;
        if (row)
          hits.push({
            table: t.name,
            column: c.name,
            exact: row[c.name] === content,
            row,
            virtual,
            log: holdsAny(
              db,
              t.name,
              cols.map((x) => x.name),
              reads,
            ),
          });
      } catch {
        // a virtual table whose module is not loaded here cannot be read; its shadow tables can
      }
    }
  }
  // a table that grows on reads (it holds the recall queries) is a log of calls: last
  const rank = (h: (typeof hits)[number]) =>
    (h.log ? 8 : 0) + (h.virtual ? 4 : 0) + (SIDE_TABLE.test(h.table) ? 2 : 0) + (h.exact ? 0 : 1);
  const best = [...hits].sort((a, b) => rank(a) - rank(b))[0];
  if (!best) return undefined;
  const columns = Object.keys(best.row);
  const notes: string[] = [];
  const logs = [...new Set(hits.filter((h) => h.log).map((h) => h.table))];
  if (logs.length && !best.log)
    notes.push(`not the memories: ${logs.join(', ')} (it holds the recall queries too: a log of calls)`);
  if (best.log)
    notes.push(
      `${best.table} holds the recall queries as well as the marker: it may be a log of calls; check that it is the memories`,
    );
  const pick = (role: string, exclude: string[] = []) =>
    columns.find((c) => COLUMN_NAMES[role].includes(c.toLowerCase()) && !exclude.includes(c));
  const idColumn = pick('id', [best.column]);
  const subjectColumn = pick('subject', [best.column, ...(idColumn ? [idColumn] : [])]);
  const t = 't';
  const col = (c: string | undefined, as: string) => (c ? `${t}.${q(c)} AS ${as}` : `NULL AS ${as}`);
  const deleted = deletedExpr(columns, t);
  if (deleted.note) notes.push(deleted.note);
  const view =
    `SELECT ${idColumn ? `${t}.${q(idColumn)}` : `${t}.rowid`} AS id, ${t}.${q(best.column)} AS content, ` +
    `${col(pick('category'), 'category')}, ${col(pick('source'), 'source')}, ` +
    `${col(subjectColumn, 'subject')}, ` +
    `${col(pick('created_at'), 'created_at')}, ${deleted.expr} AS is_deleted FROM store.${q(best.table)} ${t}`;
  if (!best.exact)
    notes.push(
      `${best.table}.${best.column} holds the marker inside a longer value; check that content is the memory's text`,
    );
  return {
    table: best.table,
    view,
    rowIds: [idColumn, subjectColumn]
      .filter((c): c is string => c !== undefined && best.row[c] !== null)
      .map((c) => String(best.row[c])),
    alsoIn: [...new Set(hits.map((h) => h.table).filter((n) => n !== best.table))],
    notes,
  };
}

/** How a row says it was deleted: a deleted_at stamp, a deleted flag, or nothing (a hard delete). */
function deletedExpr(columns: string[], t: string): { expr: string; note?: string } {
  const lower = (c: string) => c.toLowerCase();
  const stamp = columns.find((c) => ['deleted_at', 'deletedat', 'archived_at'].includes(lower(c)));
  if (stamp) return { expr: `(${t}.${q(stamp)} IS NOT NULL)` };
  const flag = columns.find((c) => ['is_deleted', 'deleted', 'isdeleted', 'archived'].includes(lower(c)));
  if (flag) return { expr: `(${t}.${q(flag)} <> 0)` };
  const status = columns.find((c) => ['status', 'state'].includes(lower(c)));
  if (status)
    return {
      expr: '0',
      note: `column ${status} may mark deleted rows; is_deleted is 0 until you say which values mean deleted`,
    };
  return { expr: '0' };
}

/** Where in a JSON value a string holding the marker sits: keys and array indexes, outermost first. */
export function markerPath(value: unknown, marker: string): (string | number)[] | undefined {
  if (typeof value === 'string') return value.includes(marker) ? [] : undefined;
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) {
      const p = markerPath(v, marker);
      if (p) return [i, ...p];
    }
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const p = markerPath(v, marker);
      if (p) return [k, ...p];
    }
  }
  return undefined;
}

const jsonPath = (parts: (string | number)[]) =>
  '$' + parts.map((p) => (typeof p === 'number' ? `[${p}]` : /^[A-Za-z_]\w*$/.test(p) ? `.${p}` : `."${p}"`)).join('');

export interface JsonlDraft {
  view: string;
  /** the marker record's id or name: what a remember's result may name */
  rowIds: string[];
  notes: string[];
}

/**
 * Draft the `memories` view over a JSONL store (loaded as `store.records(line, type, json)`)
 * from the line holding the marker: the marker's path gives content, an array on the way gives
 * one row per element, the record's own id or name gives id.
 */
export function draftJsonlView(file: string, marker: string): JsonlDraft | undefined {
  const line = readFileSync(file, 'utf8')
    .split('\n')
    .find((l) => l.includes(marker));
  if (!line) return undefined;
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return undefined;
  }
  const path = markerPath(record, marker);
  if (!path || !record || typeof record !== 'object') return undefined;
  const rec = record as Record<string, unknown>;
  const notes: string[] = [];
  const arrayAt = path.findIndex((p) => typeof p === 'number');
  // by the names' order: "entityType" is a better category than the record's own "type"
  const own = (names: string[], except: string[] = []) =>
    names.map((n) => Object.keys(rec).find((k) => k.toLowerCase() === n && !except.includes(k))).find(Boolean);
  const field = (k: string | undefined, as: string) =>
    k ? `json_extract(r.json, '$.${k}') AS ${as}` : `NULL AS ${as}`;
  const idKey = own(['id', 'uuid', 'memory_id', 'memoryid']) ?? own(['name', 'key', 'title']);
  const where = typeof rec.type === 'string' ? ` WHERE r.type = '${rec.type.replace(/'/g, "''")}'` : '';
  let from = 'store.records r';
  let content: string;
  let id: string;
  if (arrayAt >= 0 && arrayAt === path.length - 1) {
    // a memory is one element of an array in its record (server-memory's observations)
    from += `, json_each(r.json, '${jsonPath(path.slice(0, arrayAt))}') o`;
    content = 'o.value';
    id = idKey ? `json_extract(r.json, '$.${idKey}') || '#' || o.key` : `r.line || '#' || o.key`;
  } else {
    if (arrayAt >= 0)
      notes.push(`the marker sits inside an array of objects at ${jsonPath(path)}; the view reads only the first`);
    content = `json_extract(r.json, '${jsonPath(path)}')`;
    id = idKey ? `json_extract(r.json, '$.${idKey}')` : 'r.line';
  }
  if (!idKey) notes.push('the record names no id; the view uses the line number');
  const subjectKey = own(['subject', 'entityname', 'name', 'key', 'title']);
  const deleted = own(['deleted_at', 'deletedat'])
    ? `(json_extract(r.json, '$.${own(['deleted_at', 'deletedat'])}') IS NOT NULL)`
    : '0';
  const view =
    `SELECT ${id} AS id, ${content} AS content, ${field(own(COLUMN_NAMES.category, typeof rec.type === 'string' ? ['type'] : []), 'category')}, ` +
    `${field(own(COLUMN_NAMES.source), 'source')}, ${field(subjectKey, 'subject')}, ` +
    `${field(own(COLUMN_NAMES.created_at), 'created_at')}, ${deleted} AS is_deleted FROM ${from}${where}`;
  const rowIds = [idKey, subjectKey]
    .filter((k): k is string => k !== undefined && (typeof rec[k] === 'string' || typeof rec[k] === 'number'))
    .map((k) => String(rec[k]));
  return { view, rowIds, notes };
}

/**
 * Draft the `memories` view over a JSON file in a files store (loaded as `store.files(path, dir,
 * name, content, size)`) that keeps many memories: one row per record of the object or array
 * that holds the marker's record (json_each), not one row for the whole file, which would make
 * every memory in it one memory. Undefined for a file that is not one JSON document.
 */
export function draftJsonFileView(file: string, rel: string, marker: string): JsonlDraft | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  const path = markerPath(doc, marker);
  if (!path?.length) return undefined;
  // the whole file is one record ({ "id": …, "content": … }): one row per such file
  if (path.length === 1 && typeof path[0] === 'string') return jsonRecordFiles(doc as Record<string, unknown>, path[0]);
  // the marker is a record's field ({ "lrn-1": { content } }, [{ text }]) or the record itself ([ "text" ])
  const inRecord = path.length >= 2 && typeof path.at(-1) === 'string';
  const container = path.slice(0, inRecord ? -2 : -1);
  let rec: unknown = doc;
  for (const p of path.slice(0, inRecord ? -1 : path.length)) rec = (rec as Record<string | number, unknown>)[p];
  const record = inRecord && rec && typeof rec === 'object' ? (rec as Record<string, unknown>) : {};
  const own = (names: string[]) =>
    names.map((n) => Object.keys(record).find((k) => k.toLowerCase() === n)).find(Boolean);
  const field = (k: string | undefined, as: string) =>
    k ? `json_extract(j.value, '$.${k}') AS ${as}` : `NULL AS ${as}`;
  const idKey = own(['id', 'uuid', 'memory_id', 'memoryid']);
  const subjectKey = own(['subject', 'title', 'name', 'key', 'topic', 'entityname']);
  const deletedKey = own(['deleted_at', 'deletedat']);
  const content = inRecord ? `json_extract(j.value, '$.${String(path.at(-1))}')` : 'j.value';
  const view =
    `SELECT ${idKey ? `json_extract(j.value, '$.${idKey}')` : 'j.key'} AS id, ${content} AS content, ` +
    `${field(own(COLUMN_NAMES.category), 'category')}, ${field(own(COLUMN_NAMES.source), 'source')}, ` +
    `${field(subjectKey, 'subject')}, ${field(own([...COLUMN_NAMES.created_at, 'createdat']), 'created_at')}, ` +
    `${deletedKey ? `(json_extract(j.value, '$.${deletedKey}') IS NOT NULL)` : '0'} AS is_deleted ` +
    `FROM store.files f, json_each(f.content, '${jsonPath(container)}') j WHERE f.path = '${rel.replace(/'/g, "''")}'`;
  const key = container.length < path.length ? path[container.length] : undefined;
  const rowIds = [idKey !== undefined ? record[idKey] : key, subjectKey !== undefined ? record[subjectKey] : undefined]
    .filter((v): v is string | number => typeof v === 'string' || typeof v === 'number')
    .map(String);
  return { view, rowIds, notes: idKey ? [] : ['the record names no id; the view uses its key in the file'] };
}

/** A files store of one JSON record per file: one row per `.json` file, its fields as the columns. */
function jsonRecordFiles(record: Record<string, unknown>, contentKey: string): JsonlDraft {
  const own = (names: string[]) =>
    names.map((n) => Object.keys(record).find((k) => k.toLowerCase() === n)).find(Boolean);
  const field = (k: string | undefined, as: string) =>
    k ? `json_extract(f.content, '$.${k}') AS ${as}` : `NULL AS ${as}`;
  const idKey = own(['id', 'uuid', 'memory_id', 'memoryid']);
  const subjectKey = own(['subject', 'title', 'name', 'key', 'topic', 'entityname']);
  const view =
    `SELECT ${idKey ? `json_extract(f.content, '$.${idKey}')` : 'f.path'} AS id, json_extract(f.content, '$.${contentKey}') AS content, ` +
    `${field(own(COLUMN_NAMES.category), 'category')}, ${field(own(COLUMN_NAMES.source), 'source')}, ` +
    `${field(subjectKey, 'subject')}, ${field(own(COLUMN_NAMES.created_at), 'created_at')}, 0 AS is_deleted ` +
    "FROM store.files f WHERE f.name LIKE '%.json' AND json_valid(f.content)";
  const rowIds = [idKey, subjectKey]
    .map((k) => (k !== undefined ? record[k] : undefined))
    .filter((v): v is string | number => typeof v === 'string' || typeof v === 'number')
    .map(String);
  return { view, rowIds, notes: [] };
}
