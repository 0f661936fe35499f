import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import chalk from 'chalk';
import { writeOut } from './output.js';
import { CHECKED_CLAIMS } from '../fuzz/case.js';
import { BUILTIN_SCENARIOS } from '../util/paths.js';
import type { CampaignSummary, CaseReport } from '../fuzz/campaign.js';
import { DEFAULT_CHECK_SETTINGS, DEFAULT_SHRINK_RUNS, defaultFlagsFile } from '../fuzz/settings.js';
import { RECIPES } from '../fuzz/recipes.js';
import { collectList, nonNegativeInt, positiveInt, type CliContext } from './options.js';

interface FuzzFlags {
  target: string[];
  budget?: number;
  time?: number;
  seed?: string;
  recipe?: string[];
  flags?: string;
  out?: string;
  keep: boolean;
  history: boolean;
  scenarios: string;
  callTimeout?: number;
  assumeClaim?: string[];
  latencyFactor: number;
  latencyMinSamples: number;
  latencyFloor: number;
  shrink: number;
  json: boolean;
}

/** "90s", "10m", "1h", "1500ms" or plain seconds → milliseconds. */
export function parseDuration(value: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim());
  if (!m) throw new InvalidArgumentError('expected a duration like 90s, 10m or 1h');
  const unit = { ms: 1, s: 1000, m: 60000, h: 3600000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  return Math.round(Number(m[1]) * unit);
}

function positiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a number above 0');
  return n;
}

function progressLine(p: CaseReport): string {
  const of = p.budget ? `${p.index}/${p.budget}` : `${p.index}`;
  const head = `[${of}] ${p.target} ${p.fuzzCase.recipe} ${p.fuzzCase.fingerprint}${p.fuzzCase.novel ? '' : ' (repeat)'} ${(p.ms / 1000).toFixed(1)}s`;
  if (p.harnessError) return `${head} ${chalk.yellow('harness error')}: ${p.harnessError}`;
  const unjudged = p.unjudged.length
    ? `\n      ${chalk.yellow('unjudged')}: ${p.unjudged.join('; ').slice(0, 300)}`
    : '';
  // a claim the case could not judge is no clean case
  if (!p.findings.length)
    return `${head} ${p.unjudgedClaims.length ? chalk.yellow('unjudged') : chalk.green('ok')}${unjudged}`;
  const checks = [...new Set(p.findings.map((f) => (f.claim ? `${f.check}(${f.claim})` : f.check)))].join(', ');
  const shrink = p.shrink ? `\n      ${p.shrink.shrunk ? chalk.cyan(p.shrink.note) : chalk.yellow(p.shrink.note)}` : '';
  return `${head} ${chalk.red('FLAG')} ${checks}${p.resurfaced ? chalk.red(' (resurfaced)') : ''}\n      ${p.findings[0].reason.slice(0, 300)}${shrink}${unjudged}`;
}

function summaryLines(s: CampaignSummary): string {
  const checks = Object.entries(s.by_check)
    .filter(([, n]) => n > 0)
    .map(([c, n]) => `${c} ${n}`)
    .join(', ');
  return `${s.target}: ${s.cases} case(s) (${s.novel} novel) in ${(s.ms / 1000).toFixed(0)}s, ${s.flagged} flagged${checks ? ` [${checks}]` : ''}${s.harness_errors ? `, ${s.harness_errors} harness error(s)` : ''}${s.unjudged ? `, ${s.unjudged} case(s) with something unjudged${s.claims_unjudged ? ` (${s.claims_unjudged} with a claim unjudged)` : ''}` : ''}${s.latency_unconfirmed ? `, ${s.latency_unconfirmed} latency outlier(s) not repeated by a rerun` : ''}${s.shrink_runs ? `, ${s.shrunk} shrunk (${s.shrink_runs} shrink run(s))` : ''}; seed ${s.seed}`;
}

export function registerFuzz(program: Command, cli: CliContext): void {
  program
    .command('fuzz')
    .description(
      "generate novel memory-op sequences from the scenarios' vocabulary, run them through real targets, and flag structural anomalies into a review queue",
    )
    .option('--target <name>', 'target(s) to fuzz, repeated or comma-separated, or all', collectList)
    .option('--budget <n>', 'number of cases per target (default 50, or unbounded with --time)', positiveInt)
    .option('--time <duration>', 'stop starting new cases after this long per target (90s, 10m, 1h)', parseDuration)
    .option('--seed <seed>', 'makes the run reproducible (default: random, printed)')
    .option('--recipe <name>', `recipe(s) to use: ${RECIPES.map((r) => r.name).join(', ')}`, collectList)
    .option('--flags <file>', `the review queue (default ${defaultFlagsFile()})`)
    .option('--out <dir>', 'where flagged cases keep their evidence (default runs/fuzz-<time>)')
    .option('--keep', 'keep the evidence of clean cases too', false)
    .option(
      '--no-history',
      'ignore fingerprints tried in earlier runs (with the same --seed, reproduces a run exactly)',
    )
    .option('--scenarios <dir>', 'scenario folder the vocabulary is read from', BUILTIN_SCENARIOS)
    .option(
      '--call-timeout <ms>',
      "per-call timeout: a call without an answer by then is a hang (default: the target's call_timeout_ms)",
      positiveInt,
    )
    .option(
      '--assume-claim <claim>',
      `hold the target to a claim its declaration does not state: ${CHECKED_CLAIMS.join(', ')}`,
      collectList,
    )
    .option(
      '--latency-factor <x>',
      "a call slower than this times its recipe's p95 is an outlier",
      positiveNumber,
      DEFAULT_CHECK_SETTINGS.latencyFactor,
    )
    .option(
      '--latency-min-samples <n>',
      'calls a recipe needs before its latency is judged',
      positiveInt,
      DEFAULT_CHECK_SETTINGS.latencyMinSamples,
    )
    .option(
      '--latency-floor <ms>',
      'never call a call an outlier below this',
      positiveInt,
      DEFAULT_CHECK_SETTINGS.latencyFloorMs,
    )
    .option(
      '--shrink <runs>',
      'runs through the target each flagged case may spend on finding a smaller case with the same flag (0: no shrink)',
      nonNegativeInt,
      DEFAULT_SHRINK_RUNS,
    )
    .option('--json', 'print the summary as JSON', false)
    .action(async (flags: FuzzFlags) => {
      const { runFuzz } = await import('../app/fuzz.js');
      const { interruptHandler } = await import('./interrupt.js');
      const { abort, dispose } = interruptHandler((s) => process.stderr.write(s + '\n'), cli.hardExit);
      const r = await runFuzz({
        targets: flags.target,
        scenariosDir: flags.scenarios,
        budget: flags.budget,
        timeMs: flags.time,
        seed: flags.seed,
        recipes: flags.recipe,
        flagsFile: flags.flags,
        outDir: flags.out,
        keep: flags.keep,
        history: flags.history,
        callTimeoutMs: flags.callTimeout,
        shrinkRuns: flags.shrink,
        settings: {
          assumeClaims: flags.assumeClaim,
          latencyFactor: flags.latencyFactor,
          latencyMinSamples: flags.latencyMinSamples,
          latencyFloorMs: flags.latencyFloor,
        },
        signal: abort.signal,
        onCase: (p) => process.stderr.write(progressLine(p) + '\n'),
        log: (s) => process.stderr.write(chalk.dim(s) + '\n'),
      }).finally(dispose);
      if (flags.json)
        await writeOut(
          JSON.stringify({ seed: r.seed, flags: r.flags, out: r.out, targets: r.targets }, null, 2) + '\n',
        );
      else for (const s of r.targets) await writeOut(summaryLines(s) + '\n');
      cli.exitCode = r.exitCode;
    });
}
