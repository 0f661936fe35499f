import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { StoreSqlRecord } from '../core/results.js';
import type { Scenario } from '../scenario/schema.js';
import {
  describeExpectRows,
  normaliseStatement,
  rowsMeet,
  storeSqlKeys,
  type PinStatement,
} from '../scenario/store-sql.js';
import type { TargetDecl } from '../targets/schema.js';
import { PinCapture, type PinnedRow } from '../mcp/store-pins.js';
import { messageOf } from '../util/errors.js';

/**
 * Run a scenario's `setup.store_sql` against the stopped server's SQLite store, in order, in one
 * transaction. Every statement is recorded with the rows it changed. The first that fails, reads
 * instead of writing, writes no ordinary table (so its rows cannot be checked later), or changes
 * a number of rows it was not meant to, ends the pinning: the transaction is rolled back (the
 * phase would run on half-pinned state) and the problem returned, so the cell is `error`, never
 * judged on a store the scenario did not set up. On success, `pins` are the rows the statements
 * changed, as every later server start must leave them (mcp/store-pins.ts PinWatch).
 */
export function pinStore(
  storePath: string,
  statements: PinStatement[],
): { records: StoreSqlRecord[]; pins?: PinnedRow[]; problem?: string } {
  const records: StoreSqlRecord[] = [];
  if (!existsSync(storePath))
    return {
      records,
      problem: `setup.store_sql: the store ${storePath} does not exist after seeding, so nothing could be pinned`,
    };
  let db: Database.Database;
  try {
    db = new Database(storePath, { fileMustExist: true });
  } catch (e) {
    return { records, problem: `setup.store_sql: cannot open the store ${storePath}: ${messageOf(e)}` };
  }
  let problem: string | undefined;
  let pins: PinnedRow[] | undefined;
  try {
    db.exec('BEGIN IMMEDIATE');
    const capture = new PinCapture(db);
    for (const [i, s] of statements.entries()) {
      const rec: StoreSqlRecord = { index: i, sql: s.sql, expect_rows: s.expect_rows, rows: null, ok: false };
      records.push(rec);
      try {
        const stmt = db.prepare(s.sql);
        if (stmt.reader)
          throw new Error('it reads rows instead of changing them (store_sql pins state: UPDATE, INSERT, DELETE)');
        if (!capture.table(i, s.sql))
          throw new Error(
            'it writes no ordinary table (a virtual table?), so whether the pin still holds once the server has started cannot be checked; pin the table behind it',
          );
        rec.rows = stmt.run().changes;
      } catch (e) {
        rec.error = messageOf(e);
        problem = `setup.store_sql[${i}] failed against the store: ${rec.error} (${s.sql})`;
        break;
      }
      if (!rowsMeet(rec.rows, s.expect_rows)) {
        problem = `setup.store_sql[${i}] changed ${rec.rows} row(s), and the scenario expects ${describeExpectRows(s.expect_rows)}: the state it pins is not in the store (${s.sql})`;
        break;
      }
      rec.ok = true;
    }
    if (!problem) pins = capture.rows();
    db.exec(problem ? 'ROLLBACK' : 'COMMIT');
    if (problem) for (const r of records) if (r.ok) r.rolled_back = true;
  } catch (e) {
    problem ??= `setup.store_sql: ${messageOf(e)}`;
    if (db.inTransaction) db.exec('ROLLBACK');
  } finally {
    db.close();
  }
  return problem ? { records, problem } : { records, pins: pins ?? [] };
}

/**
 * Load-time checks of `setup.store_sql` for one target of the run: a key naming this target by
 * its exact name needs an SQLite store; two patterns naming it are ambiguous; every statement is
 * one statement that compiles as far as it can without the store's tables (a syntax error is
 * caught before anything runs; an unknown table or column only once the store exists).
 */
export function storeSqlProblems(scenario: Scenario, decl: TargetDecl): string[] {
  const all = scenario.setup.store_sql;
  if (!all) return [];
  const problems: string[] = [];
  const keys = storeSqlKeys(scenario, decl.name);
  if (keys.includes(decl.name) && decl.store.format !== 'sqlite')
    problems.push(
      `setup.store_sql.${decl.name}: the target's store is ${decl.store.format}, not SQLite, so SQL cannot pin it; remove the key (the scenario is then unsupported on it)`,
    );
  if (!keys.includes(decl.name) && keys.length > 1)
    problems.push(
      `setup.store_sql: ${keys.join(', ')} all name target ${decl.name}; give it its own key or make the patterns disjoint`,
    );
  return problems;
}

/** Syntax checks of every statement, once per scenario (the store's tables are not known yet). */
export function storeSqlSyntaxProblems(scenario: Scenario): string[] {
  const all = scenario.setup.store_sql;
  if (!all) return [];
  const problems: string[] = [];
  const db = new Database(':memory:');
  try {
    for (const [key, list] of Object.entries(all)) {
      list.map(normaliseStatement).forEach((s, i) => {
        if (severalStatements(s.sql))
          return void problems.push(
            `setup.store_sql.${key}[${i}]: one statement per entry (split it into several entries)`,
          );
        try {
          db.prepare(s.sql);
        } catch (e) {
          const msg = messageOf(e);
          if (/no such (table|column)/.test(msg)) return; // depends on the store: checked when it runs
          problems.push(
            /more than one statement/.test(msg)
              ? `setup.store_sql.${key}[${i}]: one statement per entry (split it into several entries)`
              : `setup.store_sql.${key}[${i}]: ${msg}`,
          );
        }
      });
    }
  } finally {
    db.close();
  }
  return problems;
}

/**
 * Text after a `;` outside quotes and comments: SQLite compiles only up to the first unknown
 * table, so without the store a second statement is found by reading, not by preparing.
 */
function severalStatements(sql: string): boolean {
  const bare = sql.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|--[^\n]*|\/\*[\s\S]*?\*\//g, ' ');
  return /;\s*\S/.test(bare);
}
