import { isAbsolute, join } from 'node:path';
import { EvidenceError, openEvidence, type Evidence } from '../evidence/open.js';
import { readRun } from '../report/reader.js';
import { InputError, nearest, messageOf } from '../util/errors.js';

/** One cell of a run, as `memeval sql` names it: by its id, or (the older form) scenario, target and phase. */
export type CellRef = { runDir: string } & (
  | { cellId: string }
  | {
      scenario: string;
      target: string;
      phase: string;
    }
);

const TABLES = "SELECT schema, name, type FROM pragma_table_list WHERE name NOT LIKE 'sqlite_%' ORDER BY schema, name";

/**
 * A cell's evidence, opened read-only (the caller closes it). An unknown cell, a name that fits
 * several cells (two agents or repeats of one real-model cell), or unreadable evidence is invalid
 * input naming the cells: never the first of several.
 */
export function openCellEvidence(ref: CellRef): Evidence {
  const { report, runDir: dir } = readRun(ref.runDir);
  const asked = 'cellId' in ref ? ref.cellId : `${ref.scenario} ${ref.target} ${ref.phase}`;
  const found = report.results.filter((r) =>
    'cellId' in ref
      ? r.cell_id === ref.cellId
      : r.scenario === ref.scenario && r.target === ref.target && r.phase === ref.phase,
  );
  const ids = report.results.map((r) => r.cell_id);
  if (found.length > 1)
    throw new InputError(
      `${asked} names ${found.length} cells in ${dir}; name one by its id: ${found.map((r) => r.cell_id).join(', ')}`,
    );
  const cell = found[0];
  if (!cell) {
    const guess = nearest('cellId' in ref ? ref.cellId : `${ref.scenario}/${ref.target}/${ref.phase}`, ids);
    throw new InputError(
      `no cell ${asked} in ${dir}${guess ? ` (did you mean "${guess}"?)` : ''}; cells: ${ids.slice(0, 8).join(', ')}${ids.length > 8 ? ', …' : ''}`,
    );
  }
  try {
    return openEvidence(isAbsolute(cell.cell_dir) ? cell.cell_dir : join(dir, cell.cell_dir));
  } catch (e) {
    if (e instanceof EvidenceError) throw new InputError(e.message);
    throw e;
  }
}

/** Rows of a read-only query (default: the tables and views); anything that would write is invalid input. */
export function queryEvidence(ev: Evidence, query?: string): Record<string, unknown>[] {
  try {
    const stmt = ev.db.prepare(query ?? TABLES);
    if (!stmt.reader)
      throw new Error(
        'only read-only queries that return rows (SELECT, WITH, PRAGMA) are allowed; evidence is never changed',
      );
    return stmt.all() as Record<string, unknown>[];
  } catch (e) {
    throw new InputError(`query: ${messageOf(e)}`);
  }
}

/** Query one cell's evidence and close it. */
export function queryCell(ref: CellRef & { query?: string }): Record<string, unknown>[] {
  const ev = openCellEvidence(ref);
  try {
    return queryEvidence(ev, ref.query);
  } finally {
    ev.close();
  }
}

/** The same evidence as a sqlite3 shell setup: the store attached by absolute path, the views recreated. */
export function sqliteShellSetup(ev: Evidence): string {
  const store = (ev.db.prepare('PRAGMA database_list').all() as { name: string; file: string }[]).find(
    (d) => d.name === 'store',
  )?.file;
  const q = (x: string) => x.replace(/'/g, "''");
  return [
    ...(store ? [`ATTACH DATABASE '${q(store)}' AS store;`] : []),
    ...Object.entries(ev.viewSql).map(([n, v]) => `CREATE TEMP VIEW "${n}" AS ${v};`),
  ].join(' ');
}
