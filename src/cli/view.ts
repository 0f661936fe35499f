import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { runsDir } from './config.js';
import { readRun } from '../report/reader.js';
import { writeHtmlReport } from '../report/html/view.js';
import { latestRunDir } from '../report/runs.js';

export function registerView(program: Command): void {
  program
    .command('view')
    .argument('[run-dir]', 'a run directory or its report.json (default: the latest run under --runs)')
    .description('write one self-contained HTML page for a run: scoreboard, filters, and per cell the assertions, steps, calls, transcripts and evidence')
    .option('--runs <dir>', 'where run directories are (default: the config\'s out, else runs)')
    .option('--out <file>', 'where to write the page (default <run-dir>/report.html)')
    .option('--open', 'open the page in the default browser')
    .action((runDir: string | undefined, opts: { runs?: string; out?: string; open?: boolean }) => {
      const { report, runDir: dir } = readRun(runDir ?? latestRunDir(runsDir(opts.runs)));
      const file = writeHtmlReport(report, dir, opts.out);
      process.stdout.write(file + '\n');
      if (opts.open) {
        const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
        spawn(opener, [file], { detached: true, stdio: 'ignore' }).on('error', (e) => process.stderr.write(`could not open it with ${opener}: ${e.message}\n`)).unref();
      }
    });
}
