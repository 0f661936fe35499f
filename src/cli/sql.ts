import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { CellRef } from '../app/sql.js';
import { InputError } from '../util/errors.js';
import { runsDir } from './config.js';

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
    .argument(
      '<run-dir>',
      'a run directory or its report.json, or "latest" (the newest run under the config\'s out, else runs)',
    )
    .argument(
      '<cell...>',
      'the cell id as printed everywhere (scenario/target/phase, or scenario/target/real-model/agent-N), then an optional read-only SQL query (default: list the tables and views); the older form <scenario> <target> <phase> [query] still works',
    )
    .description(
      "query a cell's evidence (memories view, calls, the store) from any directory; with no query and a terminal, opens sqlite3 on it",
    )
    .addHelpText(
      'after',
      '\nExamples:\n  memeval sql latest cross-session-recall/server-memory/well-behaved "SELECT * FROM memories"\n  memeval sql runs/<run-id> cross-session-recall/server-memory/real-model/codex-1 "SELECT tool, op FROM calls"',
    )
    .option('--json', 'print rows as JSON')
    .action(async (runArg: string, rest: string[], opts: { json?: boolean }) => {
      const { openCellEvidence, queryEvidence, sqliteShellSetup } = await import('../app/sql.js');
      const { latestRunDir } = await import('../report/runs.js');
      const { EVIDENCE_DB } = await import('../evidence/open.js');
      const runDir = runArg === 'latest' ? latestRunDir(runsDir(undefined)) : runArg;
      const { ref, query } = cellArgs(runDir, rest);
      const ev = openCellEvidence(ref);
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
    });
}

/** A cell id has slashes, a scenario id never does: that tells the two forms apart. */
function cellArgs(runDir: string, rest: string[]): { ref: CellRef; query?: string } {
  if (rest[0].includes('/')) {
    if (rest.length > 2)
      throw new InputError(`sql: after the cell id give one query (quote it); got ${rest.length - 1} arguments`);
    return { ref: { runDir, cellId: rest[0] }, query: rest[1] };
  }
  if (rest.length < 3 || rest.length > 4)
    throw new InputError(
      'sql: name the cell by its id (scenario/target/phase) or as <scenario> <target> <phase>, then an optional query',
    );
  const [scenario, target, phase, query] = rest;
  return { ref: { runDir, scenario, target, phase }, query };
}
