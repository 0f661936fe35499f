import type { TargetDecl } from './schema.js';

/**
 * The table a store that is not SQLite is loaded into, so views over it are SQL like any other:
 * a JSONL store's lines, a folder's files. One definition for the evidence builder and the
 * load-time view check, which compiles views against it before anything runs.
 */
const TABLES: Partial<Record<TargetDecl['store']['format'], string>> = {
  jsonl: 'records (line INTEGER PRIMARY KEY, type TEXT, json TEXT)',
  // path: relative to the store folder, `/`-separated; dir: its folder ('' at the top); content: the bytes as UTF-8
  files: 'files (path TEXT PRIMARY KEY, dir TEXT, name TEXT, content TEXT, size INTEGER)',
};

/** `CREATE TABLE` for the format's table in `schema` (main or an attached name); undefined for sqlite and none. */
export function storeTableSql(format: TargetDecl['store']['format'], schema = 'main'): string | undefined {
  const table = TABLES[format];
  return table && `CREATE TABLE ${schema}.${table}`;
}
