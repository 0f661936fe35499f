import { existsSync, mkdirSync, statSync } from 'node:fs';
import { basename, extname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import chalk from 'chalk';
import { writeOut } from './output.js';
import { InputError } from '../util/errors.js';
import type { FlagRow, FlagStore } from '../fuzz/flags.js';
import { defaultFlagsFile } from '../fuzz/settings.js';

async function openStore(file: string | undefined): Promise<FlagStore> {
  const path = resolve(file ?? defaultFlagsFile());
  if (!existsSync(path))
    throw new InputError(`--flags: no flag store at ${path} (run \`memeval fuzz\` first, or point --flags at one)`);
  const { FlagStore } = await import('../fuzz/flags.js');
  return new FlagStore(path);
}

function line(r: FlagRow): string {
  const status =
    r.review_status === 'dismissed'
      ? chalk.dim('dismissed')
      : r.currently_flagged
        ? chalk.red('flagged')
        : chalk.yellow('was flagged');
  const lastRun = r.last_result === 'unjudged' ? chalk.yellow(' (the last run could not judge it)') : '';
  const shrink = r.shrink_note ? `\n    ${r.shrink_note}` : '';
  return `${r.fingerprint}  ${r.target.padEnd(18)} ${r.recipe.padEnd(18)} ${status}${lastRun}  last ${r.last_flagged_at ?? '-'}  (${r.flagged_runs}/${r.runs} runs)\n    first: ${(r.first_flagged_reason ?? '').slice(0, 300)}${shrink}`;
}

export function registerFlags(program: Command): void {
  const flags = program
    .command('flags')
    .description('the fuzz review queue: every flag not dismissed, newest first')
    .option('--flags <file>', `the flag store (default ${defaultFlagsFile()})`)
    .option('--all', 'include dismissed flags', false)
    .option('--json', 'print rows as JSON', false)
    .action(async (o: { flags?: string; all: boolean; json: boolean }) => {
      const store = await openStore(o.flags);
      try {
        const rows = store.list(o.all);
        if (o.json)
          await writeOut(
            JSON.stringify(
              rows.map((r) => ({
                ...r,
                last_findings: r.last_findings ? JSON.parse(r.last_findings) : null,
                shrunk_findings: r.shrunk_findings ? JSON.parse(r.shrunk_findings) : null,
                flagged_case: undefined,
                shrunk_case: undefined,
              })),
              null,
              2,
            ) + '\n',
          );
        else {
          for (const r of rows) await writeOut(line(r) + '\n');
          await writeOut(`${rows.length} flag(s)${o.all ? '' : ' in the queue'}\n`);
        }
      } finally {
        store.close();
      }
    });

  flags
    .command('dismiss')
    .description('take a flag out of the queue (history is kept; a different flag later brings it back)')
    .argument('<fingerprint>', 'the fingerprint (or a unique prefix)')
    .option('--target <name>', 'only the row of this target')
    .action(async (fp: string, o: { target?: string }) => {
      const store = await openStore(flags.opts().flags);
      try {
        for (const r of store.dismiss(fp, o.target)) await writeOut(`dismissed ${r.fingerprint} (${r.target})\n`);
      } finally {
        store.close();
      }
    });

  flags
    .command('export')
    .description(
      'write a scenario that replays a flagged case as a regression check (memeval validate / run --scenarios)',
    )
    .argument('<fingerprint>', 'the fingerprint (or a unique prefix)')
    .option(
      '--target <name>',
      'the target whose flag to export (needed when several targets flagged it); a declaration file for a target outside the built-in ones',
    )
    .option('--out <path>', 'a folder, or a file named <id>.json (default: the current folder)')
    .option('--original', 'export the case as it was generated, not its shrunk form', false)
    .action(async (fp: string, o: { target?: string; out?: string; original: boolean }) => {
      const { loadTarget } = await import('../targets/loader.js');
      const { flagToScenario, writeScenario } = await import('../fuzz/export.js');
      const store = await openStore(flags.opts().flags);
      try {
        const file = o.target && ['.json', '.json5'].includes(extname(o.target)) ? loadTarget(o.target) : undefined;
        const rows = store.find(fp, file?.decl.name ?? o.target);
        if (rows.length > 1)
          throw new InputError(
            `${fp} is flagged for ${rows.map((r) => r.target).join(', ')}; choose one with --target`,
          );
        const row = rows[0];
        const out = resolve(o.out ?? '.');
        const isFile = ['.json', '.json5'].includes(extname(out)) && !(existsSync(out) && statSync(out).isDirectory());
        const id = isFile
          ? basename(out, extname(out))
          : `fuzz-${row.target}-${row.recipe}-${row.fingerprint.slice(0, 8)}`;
        if (!isFile) mkdirSync(out, { recursive: true });
        const dest = isFile ? out : join(out, `${id}.json`);
        writeScenario(dest, flagToScenario(row, (file ?? loadTarget(row.target)).decl, id, { original: o.original }));
        await writeOut(
          `${dest}\nrun it: memeval run --scenarios ${resolve(dest, '..')} --target ${o.target ?? row.target}\n`,
        );
      } finally {
        store.close();
      }
    });
}
