import { spawnSync } from 'node:child_process';
import { isAbsolute, join } from 'node:path';
import type { Command } from 'commander';
import { EvidenceError, openEvidence, type Evidence } from '../evidence/open.js';
import { readRun } from '../report/reader.js';
import { InputError, nearest } from '../util/errors.js';

/** The same evidence as a sqlite3 shell setup: the store attached by absolute path, the views recreated. */
function shellSetup(ev: Evidence): string {
  const store = (ev.db.prepare('PRAGMA database_list').all() as { name: string; file: string }[]).find((d) => d.name === 'store')?.file;
  const q = (x: string) => x.replace(/'/g, "''");
  return [...(store ? [`ATTACH DATABASE '${q(store)}' AS store;`] : []), ...Object.entries(ev.viewSql).map(([n, v]) => `CREATE TEMP VIEW "${n}" AS ${v};`)].join(' ');
}

function printRows(rows: Record<string, unknown>[]): void {
  if (!rows.length) return void process.stdout.write('(no rows)\n');
  const cols = Object.keys(rows[0]);
  const cell = (v: unknown) => (v === null ? 'NULL' : typeof v === 'object' ? JSON.stringify(v) : String(v)).replace(/\s+/g, ' ');
  const width = cols.map((c) => Math.min(60, Math.max(c.length, ...rows.map((r) => cell(r[c]).length))));
  const fit = (s: string, w: number) => (s.length > w ? s.slice(0, w - 1) + '…' : s.padEnd(w));
  process.stdout.write(cols.map((c, i) => fit(c, width[i])).join(' | ') + '\n' + width.map((w) => '-'.repeat(w)).join('-+-') + '\n');
  for (const r of rows) process.stdout.write(cols.map((c, i) => fit(cell(r[c]), width[i])).join(' | ') + '\n');
}

export function registerSql(program: Command): void {
  program
    .command('sql')
    .argument('<run-dir>', 'a run directory or its report.json')
    .argument('<scenario>')
    .argument('<target>')
    .argument('<phase>')
    .argument('[query]', 'a read-only SQL query (default: list the tables and views)')
    .description("query a cell's evidence (memories view, calls, the store) from any directory; with no query and a terminal, opens sqlite3 on it")
    .option('--json', 'print rows as JSON')
    .action((runDir: string, scenario: string, target: string, phase: string, query: string | undefined, opts: { json?: boolean }) => {
      const { report, runDir: dir } = readRun(runDir);
      const cell = report.results.find((r) => r.scenario === scenario && r.target === target && r.phase === phase);
      if (!cell) {
        const ids = report.results.map((r) => `${r.scenario} ${r.target} ${r.phase}`);
        const guess = nearest(`${scenario} ${target} ${phase}`, ids);
        throw new InputError(`no cell ${scenario} ${target} ${phase} in ${dir}${guess ? ` (did you mean "${guess}"?)` : ''}; cells: ${ids.slice(0, 8).join('; ')}${ids.length > 8 ? '; …' : ''}`);
      }
      const cellDir = isAbsolute(cell.cell_dir) ? cell.cell_dir : join(dir, cell.cell_dir);
      let ev: Evidence;
      try {
        ev = openEvidence(cellDir);
      } catch (e) {
        if (e instanceof EvidenceError) throw new InputError(e.message);
        throw e;
      }
      const db = ev.db;
      try {
        if (query === undefined && process.stdin.isTTY && process.stdout.isTTY && spawnSync('sqlite3', ['-version']).status === 0) {
          const setup = shellSetup(ev);
          db.close();
          spawnSync('sqlite3', ['-readonly', '-cmd', setup, join(cellDir, 'evidence.db')], { stdio: 'inherit' });
          return;
        }
        const sql = query ?? "SELECT schema, name, type FROM pragma_table_list WHERE name NOT LIKE 'sqlite_%' ORDER BY schema, name";
        let rows: Record<string, unknown>[];
        try {
          const stmt = db.prepare(sql);
          if (!stmt.reader) throw new Error('only read-only queries that return rows (SELECT, WITH, PRAGMA) are allowed; evidence is never changed');
          rows = stmt.all() as Record<string, unknown>[];
        } catch (e) {
          throw new InputError(`query: ${(e as Error).message}`);
        }
        if (opts.json) process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
        else printRows(rows);
      } finally {
        if (db.open) db.close();
      }
    });
}
