import { join } from 'node:path';
import Database from 'better-sqlite3';
import { hashEvidence } from './hash.js';
import { EVIDENCE_DB } from './open.js';
import { RECALL_PROBES_COLUMNS } from './schema.js';

/** One result of a probe, as the target itemised it: its 1-based rank and its text. */
export interface ProbeItem {
  rank: number;
  content: string;
}

/** One recall probe as the evidence keeps it: what was asked, what came back, and how it was read. */
export interface RecallProbeRecord {
  query: string;
  /** the raw result text (every call of the recall op, joined); empty when nothing answered */
  result_text: string;
  items: ProbeItem[];
  /** false when the target declares no itemisation: items is then the whole text, or nothing */
  itemised: boolean;
  /** the target refused the recall, answered with an error, or the probe failed */
  is_error: boolean;
  /** why the answer cannot be read as results (null: it can); judges over it are `error` */
  unreadable: string | null;
  ms: number;
  ts: string;
}

export const RECALL_PROBES_TABLE = 'recall_probes';

/**
 * Created empty with every evidence DB, so a DB without it is one written before probes were
 * kept (rejudge says so) and one with it but without a query never probed that query.
 */
export function createRecallProbesTable(db: Database.Database): void {
  db.exec(`CREATE TABLE ${RECALL_PROBES_TABLE} (seq INTEGER PRIMARY KEY, query TEXT UNIQUE NOT NULL, result_text TEXT NOT NULL,
    items TEXT NOT NULL, itemised INTEGER NOT NULL, is_error INTEGER NOT NULL, unreadable TEXT, ms REAL, ts TEXT)`);
}

/** Append the probes (in the order they were asked); `items` is a JSON array of {rank, content}. */
export function writeRecallProbes(db: Database.Database, probes: RecallProbeRecord[]): void {
  const ins = db.prepare(
    `INSERT INTO ${RECALL_PROBES_TABLE} (${RECALL_PROBES_COLUMNS.join(', ')}) VALUES (${RECALL_PROBES_COLUMNS.map(() => '?').join(',')})`,
  );
  db.transaction(() => {
    for (const p of probes)
      ins.run(
        null,
        p.query,
        p.result_text,
        JSON.stringify(p.items),
        p.itemised ? 1 : 0,
        p.is_error ? 1 : 0,
        p.unreadable,
        p.ms,
        p.ts,
      );
  })();
}

/**
 * Add a cell's probes to its evidence DB (after the snapshot, before any judge reads it) and
 * return the evidence's sha256 taken again, so rejudge checks the probes' bytes too.
 */
export function storeRecallProbes(cellDir: string, probes: RecallProbeRecord[]): Record<string, string> {
  const db = new Database(join(cellDir, EVIDENCE_DB), { fileMustExist: true });
  try {
    writeRecallProbes(db, probes);
  } finally {
    db.close();
  }
  return hashEvidence(cellDir);
}

interface Row {
  query: string;
  result_text: string;
  items: string;
  itemised: number;
  is_error: number;
  unreadable: string | null;
  ms: number | null;
  ts: string | null;
}

/**
 * The stored probes by query, or null when the DB has no `recall_probes` table (evidence from
 * a memeval that did not keep them). A row whose items are not the JSON this module writes is
 * kept as unreadable rather than dropped, so a judge over it errors.
 */
export function readRecallProbes(db: Database.Database): Map<string, RecallProbeRecord> | null {
  const exists = db
    .prepare(`SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND name = ?`)
    .get(RECALL_PROBES_TABLE);
  if (!exists) return null;
  const rows = db.prepare(`SELECT * FROM main.${RECALL_PROBES_TABLE} ORDER BY seq`).all() as Row[];
  return new Map(rows.map((r) => [r.query, fromRow(r)]));
}

function fromRow(r: Row): RecallProbeRecord {
  const base = {
    query: r.query,
    result_text: r.result_text,
    itemised: r.itemised === 1,
    is_error: r.is_error === 1,
    unreadable: r.unreadable,
    ms: r.ms ?? 0,
    ts: r.ts ?? '',
  };
  const items = parseItems(r.items);
  if (!items)
    return { ...base, items: [], unreadable: r.unreadable ?? 'its stored items are not a list of {rank, content}' };
  return { ...base, items };
}

function parseItems(json: string): ProbeItem[] | null {
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch {
    return null;
  }
  if (!Array.isArray(v)) return null;
  const ok = v.every(
    (x) =>
      x !== null &&
      typeof x === 'object' &&
      typeof (x as ProbeItem).rank === 'number' &&
      typeof (x as ProbeItem).content === 'string',
  );
  return ok ? (v as ProbeItem[]) : null;
}
