import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { runsDir } from './config.js';

export function registerView(program: Command): void {
  program
    .command('view')
    .argument('[run-dir]', 'a run directory or its report.json (default: the latest run under --runs)')
    .description(
      'write one self-contained HTML page for a run: scoreboard, filters, and per cell the assertions, steps, calls, transcripts and evidence',
    )
    .option('--runs <dir>', "where run directories are (default: the config's out, else runs)")
    .option(
      '--out <file>',
      'where to write the page (default <run-dir>/report.html, with --compare <run-dir>/compare-<other run id>.html)',
    )
    .option(
      '--compare <other-run>',
      'compare with an earlier run (directory or report.json): the page leads with a matrix of the cells whose verdict differs, both verdicts, each opening its detail',
    )
    .option('--open', 'open the page in the default browser')
    .action(
      async (runDir: string | undefined, opts: { runs?: string; out?: string; open?: boolean; compare?: string }) => {
        const { writeRunPage } = await import('../app/view.js');
        // the config is read only to find the latest run
        const file = writeRunPage({
          runDir,
          runsDir: runDir ? undefined : runsDir(opts.runs),
          out: opts.out,
          compare: opts.compare,
        });
        process.stdout.write(file + '\n');
        if (opts.open) {
          const opener =
            process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
          spawn(opener, [file], { detached: true, stdio: 'ignore' })
            .on('error', (e) => process.stderr.write(`could not open it with ${opener}: ${e.message}\n`))
            .unref();
        }
      },
    );
}
