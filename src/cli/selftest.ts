import { resolve } from 'node:path';
import type { Command } from 'commander';
import { Option } from 'commander';
import chalk from 'chalk';
import type { SelftestLayer, SelftestReport, SelftestScenario } from '../app/selftest.js';
import { INPUT_MUTATIONS } from '../scenario/kinds.js';
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
  reference: boolean;
  mutations: boolean;
}

const LAYERS: SelftestLayer[] = ['deterministic', 'agent'];

/** What `memeval selftest --help` adds after the options: the statuses and the exit codes. */
const SELFTEST_HELP =
  '\nEach scenario is proven in both directions, or says why not:\n' +
  '  toothless             a hostile target got a verdict false for it (a well-behaved `pass`, a violation\n' +
  "                        `defended`/`detected` its hostility makes impossible), or a broken input of memeval's\n" +
  '                        own (a judge program that exits with its usage, a plug-in that saw nothing) decided\n' +
  '  fails-correct-server  the reference target (eval/reference/, a correct server) does not pass the\n' +
  '                        well-behaved phase, or its violation is neither detected nor defended\n' +
  '  not-proven            a hostile cell that could expose it tested nothing (unsupported, an error of\n' +
  '                        another cause, not run), or the reference target could not run it\n' +
  '  proven                none of these\n' +
  '(the rules: src/selftest/rules.ts; the hostile targets: eval/hostile/).\n\n' +
  'Exit codes: 0 every scenario proven, 1 a scenario is toothless or fails the correct server,\n' +
  '4 some scenario not proven (and none worse), 3 invalid input, 130 interrupted.\n\n' +
  'Examples:\n' +
  '  memeval selftest                                    the built-in scenarios, deterministic layer\n' +
  '  memeval selftest --scenarios ./my-scenarios         your own scenarios\n' +
  '  memeval selftest --layer deterministic,agent --agent claude-code --install\n' +
  '  memeval selftest --target hostile-blackhole --json  one hostile target, a JSON report';

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
    .option('--no-reference', 'skip the reference target (a correct server every scenario must pass)')
    .option('--no-mutations', "skip the broken inputs of memeval's own applied to the scenarios' assertions")
    .addHelpText('after', SELFTEST_HELP)
    .action((f: SelftestFlags) => selftestAction(f, cli));
}

/** Parse the layers, run the selftest (Ctrl-C stops it), print the report, set the exit code. */
async function selftestAction(f: SelftestFlags, cli: CliContext): Promise<void> {
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
      reference: f.reference,
      mutations: f.mutations,
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
  cli.exitCode =
    report.toothless.length || report.fails_correct_server.length
      ? EXIT.failed
      : report.not_proven.length
        ? EXIT.notProven
        : EXIT.ok;
}

const LABEL: Record<SelftestScenario['status'], string> = {
  proven: chalk.green('proven              '),
  toothless: chalk.red('TOOTHLESS           '),
  'fails-correct-server': chalk.red('FAILS CORRECT SERVER'),
  'not-proven': chalk.yellow('not proven          '),
};

export function formatSelftest(r: SelftestReport): string {
  const lines: string[] = [];
  for (const s of r.scenarios) {
    lines.push(`${LABEL[s.status]} ${s.id}${s.status === 'proven' ? '' : ` ${chalk.dim(`(${s.file})`)}`}`);
    for (const p of s.false_passes)
      lines.push(
        `  ${p.target} ${p.layer} ${p.phase}: ${chalk.bold(p.verdict)}, but ${p.why} ${chalk.dim(`(cell: ${p.cell_reason})`)}`,
      );
    for (const m of s.mutation_misses)
      lines.push(
        `  ${m.kind} "${m.assertion}" under ${m.mutation} (${INPUT_MUTATIONS[m.mutation]}): ${chalk.bold(m.outcome)}, a decision on a broken input ${chalk.dim(`(${m.detail})`)}`,
      );
    for (const m of s.reference_misses)
      lines.push(`  reference ${m.phase}: ${chalk.bold(m.verdict)} on a correct server ${chalk.dim(`(${m.reason})`)}`);
    for (const u of s.unproven.slice(0, 5))
      lines.push(`  ${u.target} ${u.layer} ${u.phase}: ${u.verdict}: ${chalk.dim(u.why)}`);
    if (s.unproven.length > 5)
      lines.push(chalk.dim(`  … and ${s.unproven.length - 5} more cell(s) that tested nothing`));
  }
  const counts = Object.entries(r.by_verdict)
    .map(([v, n]) => `${n} ${v}`)
    .join(', ');
  lines.push('');
  lines.push(
    `${r.cells} hostile cell(s) over ${r.targets.length} hostile target(s), ${r.layers.join(' and ')} layer: ${counts}`,
  );
  if (r.reference)
    lines.push(
      `reference target: ${r.reference.cells} cell(s): ${Object.entries(r.reference.by_verdict)
        .map(([v, n]) => `${n} ${v}`)
        .join(', ')}`,
    );
  if (r.mutations)
    lines.push(
      `broken inputs: ${r.mutations.applied} applied to the scenarios' assertions, ${r.mutations.false} decided`,
    );
  const n = r.scenarios.length;
  lines.push(
    `${r.proven.length} of ${n} scenario(s) proven, ${r.toothless.length} toothless, ${r.fails_correct_server.length} fail a correct server, ${r.not_proven.length} not proven`,
  );
  if (r.toothless.length) lines.push(chalk.red(`without teeth: ${r.toothless.join(', ')}`));
  if (r.fails_correct_server.length)
    lines.push(chalk.red(`fail a correct server: ${r.fails_correct_server.join(', ')}`));
  if (r.not_proven.length) lines.push(chalk.yellow(`not proven: ${r.not_proven.join(', ')}`));
  if (r.run_dirs.length) lines.push(`runs: ${r.run_dirs.join(', ')}`);
  return lines.join('\n') + '\n';
}
