import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { EXIT } from '../core/results.js';
import { runCampaign, type CampaignSummary, type CaseReport } from '../fuzz/campaign.js';
import { CHECKED_CLAIMS } from '../fuzz/case.js';
import { DEFAULT_CHECK_SETTINGS, defaultFlagsFile, type CheckSettings } from '../fuzz/settings.js';
import { recipeClaims } from '../fuzz/generate.js';
import { buildVocabulary } from '../fuzz/vocabulary.js';
import { FlagStore } from '../fuzz/flags.js';
import { loadScenarios, scenarioFiles, type LoadedScenario } from '../scenario/loader.js';
import type { TargetDecl } from '../targets/schema.js';
import { targetNames } from '../targets/install-many.js';
import { DEFAULT_TARGET } from '../targets/loader.js';
import { InputError, nearest } from '../util/errors.js';
import { markLive } from '../util/live-run.js';
import { BUILTIN_SCENARIOS } from '../util/paths.js';
import { resolveTargets } from './load.js';

/** A fuzz campaign: which targets, how many cases or how long, and where flags and evidence go. */
export interface FuzzConfig {
  /** target names or declaration paths, or `all` (default: the default target) */
  targets?: string[];
  /** the folder whose scenarios give the vocabulary (default: the built-in scenarios) */
  scenariosDir?: string;
  /** cases per target (default 50, or unbounded with `timeMs`) */
  budget?: number;
  /** stop starting new cases after this long per target */
  timeMs?: number;
  /** makes the campaign reproducible (default: random, reported back) */
  seed?: string;
  recipes?: string[];
  /** the review queue (default: `defaultFlagsFile()`) */
  flagsFile?: string;
  /** where flagged cases keep their evidence (default runs/fuzz-<time>) */
  outDir?: string;
  /** keep the evidence of clean cases too */
  keep?: boolean;
  /** prefer fingerprints never tried in earlier runs (default true) */
  history?: boolean;
  /** overrides every target's call_timeout_ms */
  callTimeoutMs?: number;
  settings?: Partial<CheckSettings>;
  /** candidate runs to shrink each flagged case with (default DEFAULT_SHRINK_RUNS; 0: no shrink) */
  shrinkRuns?: number;
  signal?: AbortSignal;
  onCase?: (p: CaseReport) => void;
  log?: (s: string) => void;
}

export interface FuzzResult {
  seed: string;
  flags: string;
  out: string;
  targets: CampaignSummary[];
  interrupted: boolean;
  /** 130 when interrupted, 1 when a case was flagged, a claim check of one could not judge, or the harness failed on one, else 0 */
  exitCode: number;
}

/** Run a fuzz campaign against each target in turn; bad input is an InputError before anything runs. */
export async function runFuzz(config: FuzzConfig): Promise<FuzzResult> {
  for (const c of config.settings?.assumeClaims ?? []) {
    if (!(CHECKED_CLAIMS as string[]).includes(c)) {
      const guess = nearest(c, CHECKED_CLAIMS);
      throw new InputError(
        `--assume-claim: unknown claim "${c}"${guess ? ` (did you mean "${guess}"?)` : ''}; known: ${CHECKED_CLAIMS.join(', ')}`,
      );
    }
  }
  const scenarios = loadScenarios(scenarioFiles(config.scenariosDir ?? BUILTIN_SCENARIOS));
  const asked = config.targets?.length ? config.targets : [DEFAULT_TARGET];
  const targets = resolveTargets(targetNames(asked)).map((t) => ({
    decl: config.callTimeoutMs
      ? { ...t.decl, server: { ...t.decl.server, call_timeout_ms: config.callTimeoutMs } }
      : t.decl,
    bin: t.bin,
  }));
  const seed = config.seed ?? randomBytes(4).toString('hex');
  const outDir = resolve(config.outDir ?? `runs/fuzz-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  const store = new FlagStore(resolve(config.flagsFile ?? defaultFlagsFile()));
  const summaries: CampaignSummary[] = [];
  const unmark = markLive(outDir);
  try {
    config.log?.(`memeval fuzz: seed ${seed}, flags ${store.file}, evidence of flagged cases under ${outDir}`);
    for (const t of targets) {
      for (const line of claimsAdvice(scenarios, t.decl, config.settings?.assumeClaims ?? [], config.recipes))
        config.log?.(line);
      summaries.push(
        await runCampaign({
          ...t,
          scenarios,
          seed,
          budget: config.budget,
          timeMs: config.timeMs,
          recipes: config.recipes,
          flags: store,
          history: config.history ?? true,
          outDir,
          keep: config.keep ?? false,
          settings: { ...DEFAULT_CHECK_SETTINGS, ...config.settings },
          shrinkRuns: config.shrinkRuns,
          signal: config.signal,
          onCase: config.onCase,
        }),
      );
    }
  } finally {
    store.close();
    unmark();
  }
  const interrupted = Boolean(config.signal?.aborted);
  // a claim no case could judge was not checked: that is no clean run
  const failed = summaries.some((s) => s.flagged > 0 || s.harness_errors > 0 || s.claims_unjudged > 0);
  return {
    seed,
    flags: store.file,
    out: outDir,
    targets: summaries,
    interrupted,
    exitCode: interrupted ? EXIT.interrupted : failed ? EXIT.failed : EXIT.ok,
  };
}

/**
 * Which recipes check which claims on this target, and the `--assume-claim` that turns on the
 * checks its declaration leaves off: without a claim, a recipe looks for structural faults only.
 */
export function claimsAdvice(
  scenarios: LoadedScenario[],
  decl: TargetDecl,
  assumed: string[],
  recipes?: string[],
): string[] {
  const table = recipeClaims(buildVocabulary(scenarios, decl), [...decl.claims, ...assumed], recipes);
  const off = [...new Set(table.flatMap((r) => r.claims.filter((c) => !r.on.includes(c) && !r.byOp[c])))].sort();
  const label = (r: (typeof table)[number], c: string) =>
    r.on.includes(c) ? c : r.byOp[c] ? `${c} (the ${r.byOp[c]} op's own meaning)` : `${c} (off)`;
  const lines = table.map(
    (r) => `  ${r.recipe}: ${r.claims.length ? r.claims.map((c) => label(r, c)).join(', ') : 'structural checks only'}`,
  );
  return [
    `${decl.name}: claims ${decl.claims.length ? decl.claims.join(', ') : '(none)'}${assumed.length ? `, assumed ${assumed.join(', ')}` : ''}; what each recipe checks beyond the MCP contract:`,
    ...lines,
    ...(off.length
      ? [
          `  ${off.length} claim check(s) are off because ${decl.name} does not state them; to hold it to them anyway: --assume-claim ${off.join(',')}`,
        ]
      : []),
  ];
}
