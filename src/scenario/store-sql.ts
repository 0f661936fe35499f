import type { Scenario, StoreSqlStatement } from './schema.js';

/** A `setup.store_sql` statement with its defaults filled. */
export interface PinStatement {
  sql: string;
  expect_rows: number | 'some';
  note?: string;
}

/** Does a `store_sql` key (a target name, or a pattern with `*`) name this target? */
export function keyMatches(key: string, target: string): boolean {
  if (!key.includes('*')) return key === target;
  const re = new RegExp(`^${key.split('*').map(escapeRegex).join('.*')}$`);
  return re.test(target);
}

function escapeRegex(s: string): string {
  return s.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

/** The keys of `setup.store_sql` that name this target (more than one is an input error). */
export function storeSqlKeys(scenario: Scenario, target: string): string[] {
  return Object.keys(scenario.setup.store_sql ?? {}).filter((k) => keyMatches(k, target));
}

/**
 * The statements this scenario runs against this target's store, or undefined when the scenario
 * pins nothing. An exact name wins over a pattern; `[]` when the scenario pins state for other
 * targets only (the cell is then unsupported).
 */
export function storeSqlFor(scenario: Scenario, target: string): PinStatement[] | undefined {
  const all = scenario.setup.store_sql;
  if (!all) return undefined;
  const keys = storeSqlKeys(scenario, target);
  const key = keys.find((k) => k === target) ?? keys[0];
  return key === undefined ? [] : all[key]!.map(normaliseStatement);
}

export function normaliseStatement(s: StoreSqlStatement): PinStatement {
  return typeof s === 'string' ? { sql: s, expect_rows: 'some' } : s;
}

/** Does the count of changed rows meet what the statement expects? Zero rows never does. */
export function rowsMeet(rows: number, expect: PinStatement['expect_rows']): boolean {
  if (rows <= 0) return false;
  if (expect === 'some') return true;
  return rows === expect;
}

/** "at least 1", "exactly 3" */
export function describeExpectRows(expect: PinStatement['expect_rows']): string {
  if (expect === 'some') return 'at least 1 row';
  return `exactly ${expect} row(s)`;
}

/** Why this scenario cannot pin this target's store (none: it can, or it pins nothing). */
export function storeSqlUnsupported(scenario: Scenario, target: string, format: string): string | undefined {
  const statements = storeSqlFor(scenario, target);
  if (statements === undefined) return undefined;
  if (format !== 'sqlite')
    return `the scenario pins store state with SQL (setup.store_sql), and this target's store is ${format}, not SQLite`;
  if (!statements.length)
    return `the scenario pins store state with SQL (setup.store_sql) for ${Object.keys(scenario.setup.store_sql ?? {}).join(', ')} only; its columns differ per target, so none is given for this one`;
  return undefined;
}
