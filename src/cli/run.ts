import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import chalk from 'chalk';
import { InputError, nearest } from '../util/errors.js';
import { BUILTIN_SCENARIOS } from '../util/paths.js';
import { loadScenarios, scenarioFiles, type LoadedScenario } from '../scenario/loader.js';
import { DEFAULT_TARGET, loadTarget } from '../target/loader.js';
import { NotInstalledError, resolveTargetBin } from '../target/resolve-bin.js';
import { runDeterministic, type RunTarget } from '../replay/run.js';
import { formatClosing, formatPhase } from '../report/console.js';
import { killAllNow } from '../fixture/processes.js';
import { collectList, EXIT, positiveInt } from './main.js';
import { installTargets, targetNames } from './targets.js';
import { formatMatrix } from '../report/matrix.js';

export interface RunFlags {
  scenario?: string[];
  scenarios: string;
  target?: string[];
  workers: number;
  keep?: boolean;
  json?: boolean;
  out: string;
  install?: boolean;
}

export function selectScenarios(all: LoadedScenario[], ids: string[] | undefined): LoadedScenario[] {
  if (!ids?.length) return all;
  const byId = new Map(all.map((s) => [s.scenario.id, s]));
  const problems: string[] = [];
  const picked = ids.map((id) => {
    const s = byId.get(id);
    if (!s) {
      const guess = nearest(id, byId.keys());
      problems.push(`--scenario: unknown scenario "${id}"${guess ? ` (did you mean "${guess}"?)` : ''}; see \`memeval list\``);
    }
    return s;
  });
  if (problems.length) throw new InputError(problems.join('\n'), problems);
  return picked.filter((s): s is LoadedScenario => s !== undefined);
}

export function resolveTargets(names: string[]): RunTarget[] {
  const problems: string[] = [];
  const out: RunTarget[] = [];
  for (const name of names) {
    const t = loadTarget(name);
    try {
      out.push({ ...t, bin: resolveTargetBin(t.decl) });
    } catch (e) {
      if (e instanceof NotInstalledError) problems.push(e.message);
      else throw e;
    }
  }
  if (problems.length) throw new InputError(problems.join('\n'), problems);
  return out;
}

export function registerRun(program: Command): void {
  program
    .command('run')
    .description('replay the scenarios through the real memory server(s) in throwaway fixtures and judge the end state')
    .option('--scenario <ids>', 'run only these scenario ids (repeat or comma-separate)', collectList)
    .option('--scenarios <dir>', 'folder of scenario files', BUILTIN_SCENARIOS)
    .option('--target <names>', `target(s) to run against, or "all" (repeat or comma-separate; default ${DEFAULT_TARGET})`, collectList)
    .option('--workers <n>', 'phases run in parallel (default: number of cores)', positiveInt, availableParallelism())
    .option('--keep', 'keep each fixture and print its path')
    .option('--json', 'print the report as JSON on stdout (progress goes to stderr)')
    .option('--out <dir>', 'where run directories are written', 'runs')
    .option('--install', 'install targets that are not installed yet, instead of stopping')
    .addHelpText(
      'after',
      '\nEach phase runs in a fresh fixture (project dir + isolated HOME). The report is written to\n<out>/<run-id>/report.json with the calls log and a copy of every store beside it.',
    )
    .action(async (flags: RunFlags) => {
      const scenarios = selectScenarios(loadScenarios(scenarioFiles(flags.scenarios)), flags.scenario);
      const log = (s: string) => (flags.json ? process.stderr : process.stdout).write(s + '\n');
      const names = targetNames(flags.target?.length ? flags.target : [DEFAULT_TARGET]);
      if (flags.install) await installTargets(names.map((n) => loadTarget(n).decl), log);
      const targets = resolveTargets(names);

      const abort = new AbortController();
      let interrupts = 0;
      const onSignal = () => {
        interrupts++;
        if (interrupts === 1) {
          log(chalk.yellow('\ninterrupted: stopping servers, removing fixtures, writing the report (Ctrl-C again to quit now)'));
          abort.abort();
          killAllNow();
        } else {
          killAllNow();
          process.exit(130);
        }
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);

      log(chalk.dim(`memeval: ${scenarios.length} scenario(s) × ${targets.map((t) => t.decl.name).join(', ')}, ${flags.workers} worker(s)`));
      const { report, reportPath } = await runDeterministic({
        scenarios,
        targets,
        workers: flags.workers,
        keep: Boolean(flags.keep),
        outDir: resolve(flags.out),
        signal: abort.signal,
        onResult: (r) => log(formatPhase(r)),
        options: { scenarios_dir: flags.scenarios },
      });
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      if (flags.json) process.stdout.write(JSON.stringify(report, null, 2) + '\n');
      else {
        if (targets.length > 1) log('\n' + formatMatrix(report.matrix) + '\n');
        for (const w of report.warnings) log(chalk.yellow(`warning: ${w}`));
        log(formatClosing(report, reportPath));
      }
      if (report.status === 'interrupted') process.exit(130);
      process.exitCode = report.summary.exit_code === 0 ? EXIT.ok : EXIT.failed;
    });
}
