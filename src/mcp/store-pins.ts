// What `setup.store_sql` pinned, row by row, and whether a store still holds it: a server that
// rebuilds its store at start (from a journal, a cache, an export) can undo the pins, and the
// phase would then run on a store the scenario did not describe. Lives in mcp/ because both
// memeval's own sessions (cell/sessions.ts) and the agent's proxy (mcp/proxy.ts) check it at
// each server start.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { z } from 'zod';
import { clip } from '../util/text.js';
import { messageOf } from '../util/errors.js';

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
  /** an updated row's changed columns as they were before the pins */
  before: z.record(z.string(), plainSchema).optional(),
  /** the statements (their index in setup.store_sql) that changed this row's table */
  statements: z.array(z.number()),
});
export type PinnedRow = z.infer<typeof pinnedRowSchema>;
const pinnedRowsSchema = z.array(pinnedRowSchema);

const pinsFileSchema = z.strictObject({ store: z.string(), rows: pinnedRowsSchema });
export type PinsFile = z.infer<typeof pinsFileSchema>;

/** The file a cell keeps its store's path and pinned rows in, for the agent's proxy to check at each start. */
export function pinsFile(cellDir: string): string {
  return join(cellDir, 'store-pins.json');
}

export function writePins(file: string, pins: PinsFile): void {
  writeFileSync(file, JSON.stringify(pins, null, 2));
}

export function readPins(file: string): PinsFile {
  return pinsFileSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
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
            before: Object.fromEntries(changed.map((c) => [c, was[c] ?? null])),
            statements,
          });
      }
      for (const [k, was] of before)
        if (!after.has(k)) out.push({ table, key: keyOf(was), kind: 'deleted', values: {}, statements });
    }
    return out;
  }
}

/**
 * A pinned row now: `held` (as the pins left it), `undone` (back as it was before the pins: an
 * updated column has its old value again, an inserted row is gone, a deleted row is back), or
 * `changed` (something else: the server acted on it, e.g. merged or archived it).
 */
type RowState = { state: 'held' } | { state: 'undone' | 'changed'; why: string };

/** How each pinned row stands in a store now; a store that cannot be read is a problem, never "held". */
export function pinStates(storePath: string, pins: readonly PinnedRow[]): RowState[] | { problem: string } {
  let db: Database.Database;
  try {
    // read-only: the server may be running (a WAL store shows what it committed)
    db = new Database(storePath, { readonly: true, fileMustExist: true, timeout: 5000 });
  } catch (e) {
    return { problem: `the store ${storePath} cannot be opened to check the pins: ${messageOf(e)}` };
  }
  try {
    const tables = new Map<string, Map<string, Record<string, Plain>>>();
    return pins.map((pin) => {
      let rows = tables.get(pin.table);
      if (!rows) {
        rows = readTable(db, pin.table, identity(db, pin.table));
        tables.set(pin.table, rows);
      }
      return rowState(pin, rows.get(JSON.stringify(Object.values(pin.key))));
    });
  } catch (e) {
    return { problem: `the store ${storePath} cannot be read to check the pins: ${messageOf(e)}` };
  } finally {
    db.close();
  }
}

function rowState(pin: PinnedRow, now: Record<string, Plain> | undefined): RowState {
  const row = `${pin.table} row ${Object.entries(pin.key)
    .map(([c, v]) => `${c} = ${show(v)}`)
    .join(', ')}`;
  if (pin.kind === 'deleted')
    return now ? { state: 'undone', why: `${row} is back (the pins deleted it)` } : { state: 'held' };
  if (!now)
    return pin.kind === 'inserted'
      ? { state: 'undone', why: `${row} is gone (the pins inserted it)` }
      : { state: 'changed', why: `${row} is gone (the pins updated it)` };
  const differ = Object.entries(pin.values).filter(([c, v]) => !same(now[c] ?? null, v));
  if (!differ.length) return { state: 'held' };
  const why = `${row}: ${differ.map(([c, v]) => `${c} is ${show(now[c] ?? null)}, pinned ${show(v)}`).join('; ')}`;
  const reverted = pin.before && differ.some(([c]) => c in pin.before! && same(now[c] ?? null, pin.before![c]!));
  return { state: reverted ? 'undone' : 'changed', why };
}

/**
 * Checks the pins at every server start. A table's pins are lost when every pinned row of it
 * that held just before the start is back as it was before the pins: the server restored that
 * table from something else (a journal, a cache, an export), and the phase would run on a store
 * the scenario did not describe. A server that changed some pinned rows at start (merged
 * duplicates, archived, bumped a column) acted on the pinned store: that is the phase's to
 * judge. A pin the phase itself changed before a restart no longer held, so it is not checked.
 */
export class PinWatch {
  constructor(
    private readonly storePath: string,
    private readonly pins: readonly PinnedRow[],
  ) {}

  /** Before a server starts: which pins hold now (or why that cannot be told). */
  before(): Set<number> | { problem: string } {
    const r = pinStates(this.storePath, this.pins);
    if ('problem' in r) return r;
    return new Set(r.flatMap((x, i) => (x.state === 'held' ? [i] : [])));
  }

  /** After it started: the pins it undid, as one reason (undefined: none). */
  after(server: string, heldBefore: Set<number> | { problem: string }): string | undefined {
    if (!(heldBefore instanceof Set)) return `setup.store_sql: ${heldBefore.problem}`;
    if (!heldBefore.size) return undefined;
    const r = pinStates(this.storePath, this.pins);
    if ('problem' in r) return `setup.store_sql: ${r.problem} after ${server} started`;
    const byTable = new Map<string, number[]>();
    for (const i of heldBefore) byTable.set(this.pins[i]!.table, [...(byTable.get(this.pins[i]!.table) ?? []), i]);
    const undone = [...byTable.values()].filter((rows) => rows.every((i) => r[i]!.state === 'undone')).flat();
    if (!undone.length) return undefined;
    const statements = [...new Set(undone.flatMap((i) => this.pins[i]!.statements))].sort((a, b) => a - b);
    const whys = undone.map((i) => (r[i] as { why: string }).why);
    const shown = whys.slice(0, 3);
    return `setup.store_sql: ${server} undid the pins of ${statements.map((s) => `setup.store_sql[${s}]`).join(', ')} when it started: every row they changed is back as it was before them (as when a server rebuilds its store from a journal, a cache or an export at start), so the phase would run on a store the scenario did not describe: ${shown.join('; ')}${whys.length > shown.length ? `; and ${whys.length - shown.length} more row(s)` : ''}`;
  }
}
