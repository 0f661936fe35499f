import { resolve } from 'node:path';
import type { Command } from 'commander';
import { Option } from 'commander';
import chalk from 'chalk';
import type { SelftestLayer, SelftestReport } from '../app/selftest.js';
import { hostileTargetNames } from '../targets/files.js';
import { EXIT } from '../core/results.js';
import { AGENT_NAMES } from '../agent/types.js';
import { InputError } from '../util/errors.js';
import { collectList, positiveInt, type CliContext } from './options.js';

interface SelftestFlags {
  scenarios?: string;
  scenario?: string[];
  json?: boolean;
  layer?: string[];
  agent?: string;
  install?: boolean;
  target?: string[];
  workers: number;
  out?: string;
  keep?: boolean;
  judgeModel?: string;
  judgeBaseUrl?: string;
  judgeProtocol?: string;
}

const LAYERS: SelftestLayer[] = ['deterministic', 'agent'];

export function registerSelftest(program: Command, cli: CliContext): void {
  program
    .command('selftest')
    .description(
      'run every scenario against hostile targets (a server that refuses, drops, echoes, crashes, …) and report the scenarios one of them can pass: scenarios without teeth',
    )
    .option('--scenarios <dir>', 'folder of scenario files (default: the built-in scenarios)')
    .option(
      '--scenario <ids>',
      "only these scenario ids or globs, e.g. 'secret-*' (repeat or comma-separate)",
      collectList,
    )
    .option('--json', 'print the selftest report as JSON on stdout')
    .addOption(
      new Option(
        '--layer <layers>',
        `layers to run (repeat or comma-separate): ${LAYERS.join(', ')} (default deterministic)`,
      ).argParser(collectList),
    )
    .option(
      '--agent <name>',
      `agent for the agent layer, driven by memeval's free scripted model: ${AGENT_NAMES.join(', ')}`,
    )
    .option('--install', 'install the agent if it is not installed yet')
    .option(
      '--target <names>',
      `only these hostile targets (repeat or comma-separate): ${hostileTargetNames().join(', ')}`,
      collectList,
    )
    .option('--workers <n>', 'cells run in parallel', positiveInt, 2)
    .option('--out <dir>', 'keep the run directories here (default: a temp dir, removed afterwards)')
    .option('--keep', 'keep each fixture (and the run directories)')
    .option('--judge-model <id>', 'judge for llm assertions: "scripted" (default) or a model served on this machine')
    .option('--judge-base-url <url>', 'a loopback OpenAI-compatible or Anthropic endpoint for --judge-model')
    .option('--judge-protocol <p>', 'openai-chat or anthropic-messages')
    .addHelpText(
      'after',
      '\nA scenario is toothless when a hostile target gets a verdict that is false for it: a well-behaved `pass`,\n' +
        "or a violation `defended`/`detected`, where the target's hostility makes that impossible (the rules and\n" +
        'their reasons: HOSTILE_RULES in src/app/selftest.ts; the targets: eval/hostile/).\n\n' +
        'Exit codes: 0 no toothless scenario, 1 at least one, 3 invalid input.\n\n' +
        'Examples:\n' +
        '  memeval selftest                                    the built-in scenarios, deterministic layer\n' +
        '  memeval selftest --scenarios ./my-scenarios         your own scenarios\n' +
        '  memeval selftest --layer deterministic,agent --agent claude-code --install\n' +
        '  memeval selftest --target hostile-blackhole --json  one hostile target, a JSON report',
    )
    .action(async (f: SelftestFlags) => {
      const layers = (f.layer ?? ['deterministic']).map((l) => {
        if (!LAYERS.includes(l as SelftestLayer))
          throw new InputError(`--layer: "${l}" is not a layer; use ${LAYERS.join(' or ')}`);
        return l as SelftestLayer;
      });
      const { selftest } = await import('../app/selftest.js');
      const { interruptHandler } = await import('./interrupt.js');
      const log = (s: string) => process.stderr.write(s + '\n');
      const { abort, dispose } = interruptHandler(log, cli.hardExit);
      let report: SelftestReport;
      try {
        report = await selftest({
          scenariosDir: f.scenarios && resolve(f.scenarios),
          scenarioIds: f.scenario,
          layers,
          agent: f.agent,
          install: f.install,
          targets: f.target,
          workers: f.workers,
          outDir: f.out && resolve(f.out),
          keep: f.keep,
          judgeModel: f.judgeModel,
          judgeBaseUrl: f.judgeBaseUrl,
          judgeProtocol: f.judgeProtocol,
          signal: abort.signal,
          log,
          onResult: f.json
            ? undefined
            : (r) =>
                log(
                  chalk.dim(
                    `  ${r.verdict.padEnd(11)} ${r.scenario} [${r.target}] ${r.phase}${r.agent ? ` (${r.agent.policy})` : ''}`,
                  ),
                ),
        });
      } finally {
        dispose();
      }
      if (abort.signal.aborted) {
        cli.exitCode = 130;
        return;
      }
      if (f.json) process.stdout.write(JSON.stringify(report, null, 2) + '\n');
      else process.stdout.write(formatSelftest(report));
      cli.exitCode = report.toothless.length ? EXIT.failed : EXIT.ok;
    });
}

export function formatSelftest(r: SelftestReport): string {
  const lines: string[] = [];
  for (const s of r.scenarios) {
    if (!s.toothless) {
      lines.push(`${chalk.green('ok       ')} ${s.id}`);
      continue;
    }
    lines.push(`${chalk.red('TOOTHLESS')} ${s.id} ${chalk.dim(`(${s.file})`)}`);
    for (const p of s.false_passes)
      lines.push(
        `  ${p.target} ${p.layer} ${p.phase}: ${chalk.bold(p.verdict)}, but ${p.why} ${chalk.dim(`(cell: ${p.cell_reason})`)}`,
      );
  }
  const counts = Object.entries(r.by_verdict)
    .map(([v, n]) => `${n} ${v}`)
    .join(', ');
  lines.push('');
  lines.push(
    `${r.cells} cell(s) over ${r.targets.length} hostile target(s), ${r.layers.join(' and ')} layer: ${counts}`,
  );
  lines.push(
    r.toothless.length
      ? chalk.red(`${r.toothless.length} of ${r.scenarios.length} scenario(s) without teeth: ${r.toothless.join(', ')}`)
      : chalk.green(`no scenario without teeth (${r.scenarios.length} checked)`),
  );
  if (r.run_dirs.length) lines.push(`runs: ${r.run_dirs.join(', ')}`);
  return lines.join('\n') + '\n';
}
