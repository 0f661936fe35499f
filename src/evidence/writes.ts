import type Database from 'better-sqlite3';
import { WRITES_COLUMNS } from './schema.js';

/**
 * One write op memeval issued (ops/writes.ts `WriteRecord`, read structurally: evidence/ does
 * not import ops/): what it wrote, to which memory, and how the target answered it.
 */
export interface WriteRow {
  stage: string;
  step: number;
  call?: number;
  op: string;
  memory: string;
  content: string;
  acknowledged: boolean;
  killed: boolean;
}

/** The `writes` table, in the order the writes were issued (empty: memeval issued none). */
export function writeWritesTable(db: Database.Database, rows: WriteRow[]): void {
  db.exec(`CREATE TABLE writes (${WRITES_COLUMNS.join(', ')})`);
  const ins = db.prepare(`INSERT INTO writes VALUES (${WRITES_COLUMNS.map(() => '?').join(', ')})`);
  db.transaction(() => {
    rows.forEach((w, i) =>
      ins.run(
        i + 1,
        w.stage,
        w.step,
        w.call ?? null,
        w.op,
        w.memory,
        w.content,
        w.acknowledged ? 1 : 0,
        w.killed ? 1 : 0,
      ),
    );
  })();
}
