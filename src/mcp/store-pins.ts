// What `setup.store_sql` pinned, row by row, and whether a store still holds it: a server that
// rebuilds its store at start (from a journal, a cache, an export) can undo the pins, and the
// phase would then run on a store the scenario did not describe. Lives in mcp/ because both
// memeval's own sessions (cell/sessions.ts) and the agent's proxy (mcp/proxy.ts) check it at
// each server start.
import { readFileSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { z } from 'zod';
import { clip } from '../util/text.js';

/** A value as JSON can carry it: a blob as `{hex}`, a big integer as its decimal `{int}`. */
type Plain = string | number | null | { hex: string } | { int: string };

function plain(v: unknown): Plain {
  if (v === null || v === undefined) return null;
  if (Buffer.isBuffer(v)) return { hex: v.toString('hex') };
  if (typeof v === 'bigint') return { int: v.toString() };
  if (typeof v === 'number' || typeof v === 'string') return v;
  return String(v);
}

const same = (a: Plain, b: Plain) => JSON.stringify(a) === JSON.stringify(b);
const show = (v: Plain) => clip(typeof v === 'string' ? `'${v}'` : JSON.stringify(v), 60);

const plainSchema: z.ZodType<Plain> = z.union([
  z.string(),
  z.number(),
  z.null(),
  z.strictObject({ hex: z.string() }),
  z.strictObject({ int: z.string() }),
]);

/**
 * One row a pin changed, by its identity (the table's declared primary key, else its rowid):
 * `updated` must keep the values the pins gave the columns they changed; `inserted` must still
 * be there with every value the pins wrote that is not NULL (a column left NULL the server may
 * fill, as a server embedding new rows does); `deleted` must stay gone.
 */
const pinnedRowSchema = z.strictObject({
  table: z.string(),
  /** the identity columns (`rowid` when the table declares no primary key) and their values */
  key: z.record(z.string(), plainSchema),
  kind: z.enum(['updated', 'inserted', 'deleted']),
  /** the values that must hold: column → value after the pins */
  values: z.record(z.string(), plainSchema),
  /** the statements (their index in setup.store_sql) that changed this row's table */
  statements: z.array(z.number()),
});
export type PinnedRow = z.infer<typeof pinnedRowSchema>;
const pinnedRowsSchema = z.array(pinnedRowSchema);

/** The file a cell keeps its pinned rows in, beside its calls log, for the agent's proxy to read. */
export function pinsFile(cellDir: string): string {
  return `${cellDir}/store-pins.json`;
}

export function writePins(file: string, rows: PinnedRow[]): void {
  writeFileSync(file, JSON.stringify(rows, null, 2));
}

export function readPins(file: string): PinnedRow[] {
  return pinnedRowsSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
}

/** How rows of one table are told apart: its declared primary key, else its rowid. */
interface Identity {
  columns: string[];
  /** the table declares no primary key: rows are selected with their rowid */
  rowid: boolean;
}

function quote(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

function identity(db: Database.Database, table: string): Identity {
  const cols = db.prepare('SELECT name, pk FROM pragma_table_info(?) ORDER BY pk').all(table) as {
    name: string;
    pk: number;
  }[];
  const pk = cols.filter((c) => c.pk > 0).map((c) => c.name);
  return pk.length ? { columns: pk, rowid: false } : { columns: ['rowid'], rowid: true };
}

/** Every row of a table by its identity key, values made plain. */
function readTable(db: Database.Database, table: string, id: Identity): Map<string, Record<string, Plain>> {
  const select = id.rowid ? `SELECT rowid AS rowid, * FROM ${quote(table)}` : `SELECT * FROM ${quote(table)}`;
  const rows = new Map<string, Record<string, Plain>>();
  for (const r of db.prepare(select).all() as Record<string, unknown>[]) {
    const p = Object.fromEntries(Object.entries(r).map(([k, v]) => [k, plain(v)]));
    rows.set(JSON.stringify(id.columns.map((c) => p[c] ?? null)), p);
  }
  return rows;
}

/**
 * The ordinary table a write statement changes, from its compiled program (the root page its
 * OpenWrite opens): the statement's text need not be parsed (CTEs, quoting, INSERT OR …).
 * Undefined when there is none (a virtual table, a statement that compiles to no table write).
 */
export function writtenTable(db: Database.Database, sql: string): string | undefined {
  const ops = db.prepare(`EXPLAIN ${sql}`).all() as { opcode: string; p2: number }[];
  const roots = new Set(ops.filter((o) => o.opcode === 'OpenWrite').map((o) => o.p2));
  const tables = db.prepare("SELECT name, rootpage FROM sqlite_schema WHERE type = 'table'").all() as {
    name: string;
    rootpage: number;
  }[];
  return tables.find((t) => roots.has(t.rootpage))?.name;
}

/**
 * Snapshots of the tables the pins write, taken in the pinning transaction: `before()` ahead
 * of the first statement, `rows()` after the last gives the rows they changed.
 */
export class PinCapture {
  private readonly before = new Map<string, { id: Identity; rows: Map<string, Record<string, Plain>> }>();
  private readonly statements = new Map<string, number[]>();

  constructor(private readonly db: Database.Database) {}

  /** Note the table statement `index` writes (snapshotting it the first time); false when none can be told. */
  table(index: number, sql: string): boolean {
    const table = writtenTable(this.db, sql);
    if (!table) return false;
    if (!this.before.has(table)) {
      const id = identity(this.db, table);
      this.before.set(table, { id, rows: readTable(this.db, table, id) });
    }
    this.statements.set(table, [...(this.statements.get(table) ?? []), index]);
    return true;
  }

  /** The rows the pins changed, as they must stay. */
  rows(): PinnedRow[] {
    const out: PinnedRow[] = [];
    for (const [table, { id, rows: before }] of this.before) {
      const after = readTable(this.db, table, id);
      const statements = this.statements.get(table) ?? [];
      const keyOf = (r: Record<string, Plain>) => Object.fromEntries(id.columns.map((c) => [c, r[c] ?? null]));
      for (const [k, now] of after) {
        const was = before.get(k);
        if (!was) {
          const values = Object.fromEntries(Object.entries(now).filter(([, v]) => v !== null));
          out.push({ table, key: keyOf(now), kind: 'inserted', values, statements });
          continue;
        }
        const changed = Object.keys(now).filter((c) => !same(now[c] ?? null, was[c] ?? null));
        if (changed.length)
          out.push({
            table,
            key: keyOf(now),
            kind: 'updated',
            values: Object.fromEntries(changed.map((c) => [c, now[c] ?? null])),
            statements,
          });
      }
      for (const [k, was] of before)
        if (!after.has(k)) out.push({ table, key: keyOf(was), kind: 'deleted', values: {}, statements });
    }
    return out;
  }
}

/** Which pinned rows a store holds now; the rows it cannot read are a problem, never "held". */
export function pinsHeld(
  storePath: string,
  pins: readonly PinnedRow[],
): { held: Set<number>; lost: Map<number, string> } | { problem: string } {
  let db: Database.Database;
  try {
    // read-only: the server may be running (a WAL store shows what it committed)
    db = new Database(storePath, { readonly: true, fileMustExist: true, timeout: 5000 });
  } catch (e) {
    return { problem: `the store ${storePath} cannot be opened to check the pins: ${(e as Error).message}` };
  }
  try {
    const held = new Set<number>();
    const lost = new Map<number, string>();
    const tables = new Map<string, Map<string, Record<string, Plain>>>();
    for (const [i, pin] of pins.entries()) {
      let rows = tables.get(pin.table);
      if (!rows) {
        const id = identity(db, pin.table);
        rows = readTable(db, pin.table, id);
        tables.set(pin.table, rows);
      }
      const now = rows.get(JSON.stringify(Object.values(pin.key)));
      const why = pinLost(pin, now);
      if (why) lost.set(i, why);
      else held.add(i);
    }
    return { held, lost };
  } catch (e) {
    return { problem: `the store ${storePath} cannot be read to check the pins: ${(e as Error).message}` };
  } finally {
    db.close();
  }
}

/** Why this row no longer holds what the pins gave it (undefined: it does). */
function pinLost(pin: PinnedRow, now: Record<string, Plain> | undefined): string | undefined {
  const row = `${pin.table} row ${Object.entries(pin.key)
    .map(([c, v]) => `${c} = ${show(v)}`)
    .join(', ')}`;
  if (pin.kind === 'deleted') return now ? `${row} is back (the pins deleted it)` : undefined;
  if (!now) return `${row} is gone (the pins ${pin.kind === 'inserted' ? 'inserted' : 'updated'} it)`;
  const changed = Object.entries(pin.values).filter(([c, v]) => !same(now[c] ?? null, v));
  return changed.length
    ? `${row}: ${changed.map(([c, v]) => `${c} is ${show(now[c] ?? null)}, pinned ${show(v)}`).join('; ')}`
    : undefined;
}

/**
 * Checks the pins at every server start: the pins that held just before it must still hold once
 * it has started (a pin the phase itself changed is the phase's business, not a lost pin).
 */
export class PinWatch {
  constructor(
    private readonly storePath: string,
    private readonly pins: readonly PinnedRow[],
  ) {}

  /** Before a server starts: which pins hold now (or why that cannot be told). */
  before(): Set<number> | { problem: string } {
    const r = pinsHeld(this.storePath, this.pins);
    return 'problem' in r ? r : r.held;
  }

  /** After it started: the pins it undid, as one reason (undefined: none). */
  after(server: string, heldBefore: Set<number> | { problem: string }): string | undefined {
    if (!(heldBefore instanceof Set)) return `setup.store_sql: ${heldBefore.problem}`;
    if (!heldBefore.size) return undefined;
    const r = pinsHeld(this.storePath, this.pins);
    if ('problem' in r) return `setup.store_sql: ${r.problem} after ${server} started`;
    const undone = [...heldBefore].filter((i) => r.lost.has(i));
    if (!undone.length) return undefined;
    const statements = [...new Set(undone.flatMap((i) => this.pins[i]!.statements))].sort((a, b) => a - b);
    const shown = undone.slice(0, 3).map((i) => r.lost.get(i)!);
    return `setup.store_sql: ${server} undid the pins of ${statements.map((s) => `setup.store_sql[${s}]`).join(', ')} when it started (as a server that rebuilds its store from a journal, a cache or an export at start does), so the phase would run on a store the scenario did not describe: ${shown.join('; ')}${undone.length > shown.length ? `; and ${undone.length - shown.length} more row(s)` : ''}`;
  }
}
