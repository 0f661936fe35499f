import { existsSync, mkdirSync, statSync } from 'node:fs';
import { basename, extname, join, resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import chalk from 'chalk';
import { writeOut } from './output.js';
import { InputError, nearest } from '../util/errors.js';
import type { DismissReason, FlagRow, FlagStats, FlagStore, PrecisionRow } from '../fuzz/flags.js';
import { DISMISS_REASONS } from '../fuzz/settings.js';
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
  const decided = r.outcome ? chalk.cyan(` [${r.outcome}]`) : '';
  const lastRun = decided + (r.last_result === 'unjudged' ? chalk.yellow(' (the last run could not judge it)') : '');
  const shrink = r.shrink_note ? `\n    ${r.shrink_note}` : '';
  return `${r.fingerprint}  ${r.target.padEnd(18)} ${r.recipe.padEnd(18)} ${status}${lastRun}  last ${r.last_flagged_at ?? '-'}  (${r.flagged_runs}/${r.runs} runs)\n    first: ${(r.first_flagged_reason ?? '').slice(0, 300)}${shrink}`;
}

function dismissReason(value: string): DismissReason {
  if ((DISMISS_REASONS as readonly string[]).includes(value)) return value as DismissReason;
  const guess = nearest(value, DISMISS_REASONS);
  throw new InvalidArgumentError(
    `unknown reason "${value}"${guess ? ` (did you mean "${guess}"?)` : ''}; one of ${DISMISS_REASONS.join(', ')}`,
  );
}

const percent = (p: PrecisionRow) => `${p.right}/${p.decided} (${Math.round((100 * p.right) / p.decided)}%)`;

/** Precision as a person reads it: none recorded is said so, never shown as a rate. */
function statsText(st: FlagStats): string {
  const notCounted = st.dismissed_without_reason
    ? `${st.dismissed_without_reason} dismissed without a reason: not counted\n`
    : '';
  if (!st.decided)
    return `no outcomes recorded (${st.flagged} flag(s)): record them with \`memeval flags confirm <fp>\` or \`memeval flags dismiss <fp> --reason ${DISMISS_REASONS.join('|')}\`\n${notCounted}`;
  const table = (rows: PrecisionRow[]) =>
    rows
      .map(
        (p) =>
          `  ${p.key.padEnd(28)} ${percent(p).padEnd(12)} confirmed ${p.outcomes.confirmed}, duplicate ${p.outcomes.duplicate}, false-positive ${p.outcomes['false-positive']}, expected ${p.outcomes.expected}`,
      )
      .join('\n');
  return `precision = (confirmed + duplicate) / decided, over ${st.decided} of ${st.flagged} flag(s) with an outcome\nby check:\n${table(st.by_check)}\nby target:\n${table(st.by_target)}\n${notCounted}`;
}

export function registerFlags(program: Command): void {
  const flags = program
    .command('flags')
    .description('the fuzz review queue: every flag not dismissed, newest first')
    .option('--flags <file>', `the flag store (default ${defaultFlagsFile()})`)
    .option('--all', 'include dismissed flags', false)
    .option('--json', 'print rows as JSON', false)
    .option('--stats', "the detector's precision per check and per target, from confirmed and dismissed flags", false)
    .action(async (o: { flags?: string; all: boolean; json: boolean; stats: boolean }) => {
      const store = await openStore(o.flags);
      try {
        if (o.stats) {
          const st = store.stats();
          await writeOut(o.json ? JSON.stringify(st, null, 2) + '\n' : statsText(st));
          return;
        }
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
    .option(
      '--reason <why>',
      `why, counted in flags --stats: ${DISMISS_REASONS.join(', ')} (without one the dismissal counts nowhere)`,
      dismissReason,
    )
    .action(async (fp: string, o: { target?: string; reason?: DismissReason }) => {
      const store = await openStore(flags.opts().flags);
      try {
        for (const r of store.dismiss(fp, o.target, undefined, o.reason))
          await writeOut(`dismissed ${r.fingerprint} (${r.target})${o.reason ? `: ${o.reason}` : ''}\n`);
      } finally {
        store.close();
      }
    });

  flags
    .command('confirm')
    .description('record a flag as a confirmed defect (counted in flags --stats; it stays in the queue)')
    .argument('<fingerprint>', 'the fingerprint (or a unique prefix)')
    .option('--target <name>', 'only the row of this target')
    .action(async (fp: string, o: { target?: string }) => {
      const store = await openStore(flags.opts().flags);
      try {
        for (const r of store.confirm(fp, o.target)) await writeOut(`confirmed ${r.fingerprint} (${r.target})\n`);
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
