import Database from 'better-sqlite3';
import type { Assertion } from '../../scenario/schema.js';
import { compare, describeExpected, incomparable } from '../compare.js';
import type { JudgeContext } from '../context.js';
import { decided, judgment, type Judgment } from '../judgment.js';
import { sqlSources } from '../../scenario/kinds.js';
import { memoriesViewProblem } from '../store-view.js';
import { clip } from '../../util/text.js';
import {
  AGENT_USAGE_COLUMNS,
  CALLS_COLUMNS,
  MEMORIES_COLUMNS,
  PROVIDER_CALLS_COLUMNS,
  RECALL_PROBES_COLUMNS,
  STORE_SQL_COLUMNS,
} from '../../evidence/schema.js';
import { messageOf } from '../../util/errors.js';

type Sql = Extract<Assertion, { kind: 'sql' }>;

/**
 * Why the recall answers in the calls log cannot be read as results, if one cannot: a query over
 * them would count the text of a refused, failed, misformatted or echoed recall as a finding.
 */
function unreadableRecalls(db: JudgeContext['evidence']['db']): string | undefined {
  const cols = db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('calls') as string[];
  if (!cols.includes('result_unreadable'))
    return 'this evidence predates calls.result_items (how each recall answer reads as results); run the cell again';
  const bad = db
    .prepare("SELECT seq, result_unreadable AS why FROM calls WHERE op = 'recall' AND result_unreadable IS NOT NULL")
    .all() as { seq: number; why: string }[];
  if (!bad.length) return undefined;
  return `the query reads what recalls answered, and ${bad.length} recall answer(s) cannot be read as results: ${bad
    .slice(0, 3)
    .map((b) => `calls.seq ${b.seq}: ${b.why}`)
    .join('; ')}${bad.length > 3 ? '; …' : ''}`;
}

export function judgeSql(a: Sql, ctx: JudgeContext): Judgment {
  const stmt = ctx.evidence.db.prepare(a.query);
  if (!stmt.reader || !stmt.readonly)
    return judgment(a, 'error', null, describeExpected(a.op, a.value), 'the query must be a read-only SELECT');
  const unreadable = sqlSources(a.query).includes('store') ? memoriesViewProblem(ctx.evidence.db) : undefined;
  if (unreadable) return judgment(a, 'error', null, describeExpected(a.op, a.value), `${a.query}: ${unreadable}`);
  if (sqlSources(a.query).includes('recall-text')) {
    const why = unreadableRecalls(ctx.evidence.db);
    if (why) return judgment(a, 'error', null, describeExpected(a.op, a.value), `${a.query}: ${why}`);
  }
  const row = stmt.raw().get() as unknown[] | undefined;
  // no row is not a value: comparing "nothing" would pass `ne` and fail `eq` on a read of nothing
  if (row === undefined)
    return judgment(
      a,
      'error',
      null,
      describeExpected(a.op, a.value),
      `${a.query}: the query returned no row, so there is no value to compare (return one row, e.g. SELECT count(*) …)`,
    );
  const actual = row[0] ?? null;
  const why = incomparable(actual, a.value);
  if (why) return judgment(a, 'error', actual, describeExpected(a.op, a.value), `${a.query}: ${why}`);
  return decided(a, compare(actual, a.op, a.value), {
    actual,
    expected: describeExpected(a.op, a.value),
    detail: a.query,
    observed: `the query's first row: ${clip(JSON.stringify(typeof actual === 'bigint' ? Number(actual) : actual), 200)}`,
  });
}

/**
 * Load-time check, before anything runs: the query compiles against the evidence schema as far
 * as it is known without a store (calls, memories, the target's extra view names), names no
 * unknown table, and is one read-only statement. Tables of the store itself (`store.x`) are only
 * known once the server has written them, so those are checked when the cell is judged.
 */
export function checkSql(a: Sql, extraViews: string[] = []): string[] {
  const db = new Database(':memory:');
  try {
    db.exec(`CREATE TABLE calls (${CALLS_COLUMNS.join(', ')})`);
    db.exec(`CREATE TABLE memories (${MEMORIES_COLUMNS.join(', ')})`);
    // present in the evidence of provider-backed targets (a scenario reading it is unsupported elsewhere)
    db.exec(`CREATE TABLE provider_calls (${PROVIDER_CALLS_COLUMNS.join(', ')})`);
    // the probes of the cell's recall, rank and llm-on-recall assertions (empty when it has none)
    db.exec(`CREATE TABLE recall_probes (${RECALL_PROBES_COLUMNS.join(', ')})`);
    db.exec(`CREATE TABLE store_sql (${STORE_SQL_COLUMNS.join(', ')})`);
    // present in agent cells (elsewhere a query over it is an error: no such table)
    db.exec(`CREATE TABLE agent_usage (${AGENT_USAGE_COLUMNS.join(', ')})`);
    for (const v of extraViews) db.exec(`CREATE TABLE "${v.replace(/"/g, '""')}" (x)`);
    db.exec("ATTACH DATABASE ':memory:' AS store");
    let stmt: Database.Statement;
    try {
      stmt = db.prepare(a.query);
    } catch (e) {
      const msg = messageOf(e);
      if (/no such table: store\./.test(msg) || /no such column/.test(msg)) return []; // depends on the store: judged later
      if (/contains more than one statement/.test(msg))
        return ['query: one statement only (a single read-only SELECT)'];
      return [
        `query: ${msg} (tables: memories, calls, provider_calls, recall_probes, store_sql, agent_usage, ${extraViews.map((v) => `${v}, `).join('')}store.<table>)`,
      ];
    }
    if (!stmt.reader || !stmt.readonly) return ['query: must be a read-only SELECT returning one value'];
    return [];
  } finally {
    db.close();
  }
}
