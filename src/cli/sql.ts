import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { Command } from 'commander';
import { openCellEvidence, queryEvidence, sqliteShellSetup } from '../app/sql.js';
import { EVIDENCE_DB } from '../evidence/open.js';

function printRows(rows: Record<string, unknown>[]): void {
  if (!rows.length) return void process.stdout.write('(no rows)\n');
  const cols = Object.keys(rows[0]);
  const cell = (v: unknown) =>
    (v === null ? 'NULL' : typeof v === 'object' ? JSON.stringify(v) : String(v)).replace(/\s+/g, ' ');
  const width = cols.map((c) => Math.min(60, Math.max(c.length, ...rows.map((r) => cell(r[c]).length))));
  const fit = (s: string, w: number) => (s.length > w ? s.slice(0, w - 1) + '…' : s.padEnd(w));
  process.stdout.write(
    cols.map((c, i) => fit(c, width[i])).join(' | ') + '\n' + width.map((w) => '-'.repeat(w)).join('-+-') + '\n',
  );
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
    .description(
      "query a cell's evidence (memories view, calls, the store) from any directory; with no query and a terminal, opens sqlite3 on it",
    )
    .option('--json', 'print rows as JSON')
    .action(
      (
        runDir: string,
        scenario: string,
        target: string,
        phase: string,
        query: string | undefined,
        opts: { json?: boolean },
      ) => {
        const ev = openCellEvidence({ runDir, scenario, target, phase });
        const db = ev.db;
        try {
          if (
            query === undefined &&
            process.stdin.isTTY &&
            process.stdout.isTTY &&
            spawnSync('sqlite3', ['-version']).status === 0
          ) {
            const setup = sqliteShellSetup(ev);
            db.close();
            spawnSync('sqlite3', ['-readonly', '-cmd', setup, join(ev.dir, EVIDENCE_DB)], { stdio: 'inherit' });
            return;
          }
          const rows = queryEvidence(ev, query);
          if (opts.json) process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
          else printRows(rows);
        } finally {
          if (db.open) db.close();
        }
      },
    );
}
