import type { Evidence } from '../evidence/open.js';

const checked = new WeakMap<Evidence['db'], string | null>();

/**
 * Why the memories view cannot be read as memories, if it cannot: a row whose `content` is NULL
 * means the declaration's view names a column or field the server does not write, so a count
 * or query over it would decide on nothing (a "no secret kept" that held because no content
 * was read). Asked once per evidence.
 */
export function memoriesViewProblem(db: Evidence['db']): string | undefined {
  let why = checked.get(db);
  if (why === undefined) {
    const n = db.prepare('SELECT count(*) FROM memories WHERE content IS NULL').pluck().get() as number;
    why = n
      ? `the memories view gives ${n} row(s) with NULL content: views.memories names a column or field the server does not write (memeval targets check shows which)`
      : null;
    checked.set(db, why);
  }
  return why ?? undefined;
}
