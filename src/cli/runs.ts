import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { runsDir } from './config.js';
import { listRuns, pruneRuns } from '../report/runs.js';
import { positiveInt } from './options.js';
import { InputError } from '../util/errors.js';

const mb = (n: number) => (n < 1e6 ? `${(n / 1e3).toFixed(1)} kB` : `${(n / 1e6).toFixed(1)} MB`);

export function registerRuns(program: Command): void {
  const runs = program
    .command('runs')
    .description('list or prune run directories (each run keeps its stores and evidence)');
  runs
    .command('list')
    .description(
      'runs (and rejudge, calibrate and fuzz outputs) under --runs, oldest first, with kind, status, cells, failures and size',
    )
    .option('--out <dir>', "the folder runs were written to (as `run --out`; default: the config's out, else runs)")
    .option('--runs <dir>', 'the same as --out')
    .option('--json', 'print as JSON')
    .action((opts: { out?: string; runs?: string; json?: boolean }) => {
      const dir = runsDir(opts.out ?? opts.runs);
      if (!existsSync(dir) || !statSync(dir).isDirectory())
        throw new InputError(
          `runs list: no folder ${resolve(dir)}; give the folder the runs were written to with --out DIR (as \`memeval run --out DIR\`)`,
        );
      const list = listRuns(dir);
      if (opts.json) return void process.stdout.write(JSON.stringify(list, null, 2) + '\n');
      if (!list.length)
        return void process.stdout.write(
          `no runs under ${resolve(dir)} (\`memeval run --out DIR\` writes them; list another folder with --out DIR)\n`,
        );
      for (const r of list)
        process.stdout.write(
          `${r.run_id}  ${r.kind.padEnd(9)}  ${(r.running ? 'running' : (r.status ?? 'no report')).padEnd(11)}  ${r.cells === null ? '' : `${r.cells} cells, ${r.failed} failed${r.unsupported ? `, ${r.unsupported} unsupported` : ''}`.padEnd(22)}  ${mb(r.bytes).padEnd(8)}  ${(r.layer ?? '-').padEnd(13)}  ${r.agent ?? '-'}  ${r.targets?.join(',') || '-'}\n`,
        );
      process.stdout.write(`${list.length} run(s), ${mb(list.reduce((n, r) => n + r.bytes, 0))}\n`);
    });
  runs
    .command('prune')
    .description(
      'remove all but the newest N runs (rejudge, calibrate and fuzz outputs count as runs); never one still being written',
    )
    .requiredOption('--keep <n>', 'how many of the newest runs to keep', positiveInt)
    .option('--runs <dir>', "where run directories are (default: the config's out, else runs)")
    .action((opts: { runs?: string; keep: number }) => {
      const { removed: gone, kept } = pruneRuns(runsDir(opts.runs), opts.keep);
      for (const r of gone) process.stdout.write(`removed ${r.run_id} (${mb(r.bytes)})\n`);
      for (const r of kept) process.stdout.write(`kept ${r.run_id}: ${r.running_why}\n`);
      process.stdout.write(`removed ${gone.length} run(s), freed ${mb(gone.reduce((n, r) => n + r.bytes, 0))}\n`);
    });
}
