import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadedScenario } from '../scenario/loader.js';
import type { ResolvedBin } from '../targets/resolve-bin.js';
import type { TargetDecl } from '../targets/schema.js';
import { fingerprint, type FuzzCase } from './case.js';
import { CHECKS, LatencyHistory, runChecks, type CheckName, type Finding } from './checks.js';
import { DEFAULT_SHRINK_RUNS, type CheckSettings } from './settings.js';
import type { FlagStore } from './flags.js';
import { Generator } from './generate.js';
import { CellRunner, type CaseOutcome, type FuzzRunner } from './runner.js';
import { buildVocabulary } from './vocabulary.js';
import { shrinkCase, shrinkSignature, type ShrinkResult } from './shrink.js';

export interface CampaignOptions {
  decl: TargetDecl;
  bin: ResolvedBin;
  scenarios: LoadedScenario[];
  seed: string;
  budget?: number;
  timeMs?: number;
  recipes?: string[];
  flags: FlagStore;
  /** prefer fingerprints never tried against this target in earlier runs (the flag store's rows) */
  history: boolean;
  outDir: string;
  keep: boolean;
  settings: CheckSettings;
  /** candidate runs a flagged case may spend on shrinking (0: no shrink) */
  shrinkRuns?: number;
  signal?: AbortSignal;
  runner?: FuzzRunner;
  onCase?: (p: CaseReport) => void;
}

export interface CaseReport {
  index: number;
  budget?: number;
  target: string;
  fuzzCase: FuzzCase & { novel: boolean };
  findings: Finding[];
  harnessError?: string;
  /** what a check could not judge in this case (never a pass, never a flag) */
  unjudged: string[];
  /** those of them a claim check could not judge: the case is not clean */
  unjudgedClaims: string[];
  ms: number;
  cellDir: string;
  resurfaced: boolean;
  /** what shrinking the flagged case did (undefined when it was not flagged or not shrunk) */
  shrink?: ShrinkResult;
}

export interface CampaignSummary {
  target: string;
  seed: string;
  cases: number;
  novel: number;
  flagged: number;
  harness_errors: number;
  /** cases where a check could not judge something (a file it could not read, no latency history) */
  unjudged: number;
  /** of them, cases where a claim check could not judge (a refused or unreadable recall, an echo it cannot tell from a result) */
  claims_unjudged: number;
  /** latency outliers a rerun of the case did not repeat (dropped) */
  latency_unconfirmed: number;
  /** flagged cases a shrink reduced, and the candidate runs shrinking took */
  shrunk: number;
  shrink_runs: number;
  by_check: Record<CheckName, number>;
  by_recipe: Record<string, { cases: number; flagged: number }>;
  ms: number;
  flagged_cases: { fingerprint: string; recipe: string; checks: string[]; cell_dir: string }[];
}

/** Generate cases for one target and run each through it until the budget or the time is spent. */
export async function runCampaign(o: CampaignOptions): Promise<CampaignSummary> {
  const t0 = performance.now();
  const gen = new Generator(buildVocabulary(o.scenarios, o.decl), {
    seed: o.seed,
    recipes: o.recipes,
    seen: o.history ? o.flags.seen(o.decl.name) : [],
  });
  const runner = o.runner ?? new CellRunner({ decl: o.decl, bin: o.bin });
  const latency = new LatencyHistory(o.settings, {
    load: (key) => o.flags.latencySamples(o.decl.name, key),
    save: (key, ms) => o.flags.addLatency(o.decl.name, key, ms),
  });
  const s = emptySummary(o.decl.name, o.seed);
  const budget = o.budget ?? (o.timeMs ? Infinity : 50);
  for (let i = 0; i < budget; i++) {
    if (o.signal?.aborted) break;
    if (o.timeMs !== undefined && performance.now() - t0 >= o.timeMs) break;
    const c = gen.next();
    const cellDir = join(o.outDir, o.decl.name, `${String(i + 1).padStart(4, '0')}-${c.recipe}-${c.fingerprint}`);
    const run: CaseRun = { c, cellDir, outcome: await runner.run(c, cellDir, o.signal) };
    const { outcome } = run;
    const findings = await confirmedFindings(o, runner, latency, s, run);
    if (!outcome.harnessError) latency.record(c.recipe, outcome.calls);
    const resurfaced = outcome.harnessError ? false : recordFlags(o.flags, o.decl.name, run, findings);
    const shrink = findings.length ? await shrinkFlagged(o, runner, run, findings) : undefined;
    tally(s, run, findings);
    if (shrink) ((s.shrink_runs += shrink.runs), (s.shrunk += shrink.shrunk ? 1 : 0));
    if (!findings.length && !o.keep && !outcome.harnessError) rmSync(cellDir, { recursive: true, force: true });
    o.onCase?.({
      index: i + 1,
      budget: Number.isFinite(budget) ? budget : undefined,
      target: o.decl.name,
      fuzzCase: c,
      findings,
      harnessError: outcome.harnessError,
      unjudged: outcome.unjudged,
      unjudgedClaims: outcome.unjudgedClaims,
      ms: outcome.ms,
      cellDir,
      resurfaced,
      shrink,
    });
  }
  s.ms = Math.round(performance.now() - t0);
  return s;
}

/** A generated case, where its cell went, and how it came out. */
interface CaseRun {
  c: FuzzCase & { novel: boolean };
  cellDir: string;
  outcome: CaseOutcome;
}

function emptySummary(target: string, seed: string): CampaignSummary {
  return {
    target,
    seed,
    cases: 0,
    novel: 0,
    flagged: 0,
    harness_errors: 0,
    unjudged: 0,
    claims_unjudged: 0,
    latency_unconfirmed: 0,
    shrunk: 0,
    shrink_runs: 0,
    by_check: Object.fromEntries(CHECKS.map((c) => [c, 0])) as Record<CheckName, number>,
    by_recipe: {},
    ms: 0,
    flagged_cases: [],
  };
}

/**
 * The checks' findings over a case. One slow call on a shared machine proves little: a latency
 * outlier counts only if a rerun of the case is slow too (else it is dropped and counted).
 */
async function confirmedFindings(
  o: CampaignOptions,
  runner: FuzzRunner,
  latency: LatencyHistory,
  s: CampaignSummary,
  { c, cellDir, outcome }: CaseRun,
): Promise<Finding[]> {
  let findings: Finding[] = [];
  try {
    if (!outcome.harnessError) findings = runChecks(outcome, o.decl, latency, o.settings);
  } finally {
    outcome.evidence?.close();
  }
  if (!findings.some((f) => f.check === 'latency')) return findings;
  const again = await runner.run(c, `${cellDir}-rerun`, o.signal);
  again.evidence?.close();
  // held to the same history as the case: nothing of the case is in it yet
  const confirmed = !again.harnessError && latency.check(c.recipe, again.calls).length > 0;
  if (!confirmed) {
    findings = findings.filter((f) => f.check !== 'latency');
    s.latency_unconfirmed++;
  } else for (const f of findings) if (f.check === 'latency') f.reason += '; a rerun of the case was slow too';
  if (!o.keep) rmSync(`${cellDir}-rerun`, { recursive: true, force: true });
  return findings;
}

/**
 * Shrink a flagged case through the same runner and checks, and keep what it found beside the
 * original in the queue. A row already holding a shrunk case of the same flag is not shrunk again.
 */
async function shrinkFlagged(
  o: CampaignOptions,
  runner: FuzzRunner,
  { c, cellDir }: CaseRun,
  findings: Finding[],
): Promise<ShrinkResult | undefined> {
  const runs = o.shrinkRuns ?? DEFAULT_SHRINK_RUNS;
  if (runs <= 0) return undefined;
  const row = o.flags.get(c.fingerprint, o.decl.name);
  if (row?.shrunk_case && row.shrunk_signature === shrinkSignature(findings)) return undefined;
  // latency is judged against no history here: a shrink keeps the steps' flag, not the machine's
  const noLatency = new LatencyHistory({ ...o.settings, latencyMinSamples: Number.MAX_SAFE_INTEGER });
  const r = await shrinkCase(c, findings, {
    runner,
    judge: (out) => runChecks(out, o.decl, noLatency, o.settings),
    runs,
    cellDir,
    signal: o.signal,
  });
  o.flags.recordShrink(c.fingerprint, o.decl.name, r);
  return r;
}

/** The case's row in the review queue; true when it was dismissed and has come back. */
function recordFlags(flags: FlagStore, target: string, { c, outcome }: CaseRun, findings: Finding[]): boolean {
  // a network attempt belongs to the target, not to the case: one queue row per set of hosts
  const net = findings.filter((f) => f.check === 'network');
  const own = findings.filter((f) => f.check !== 'network');
  const before = flags.get(c.fingerprint, target);
  const row = flags.record(c, target, own, undefined, outcome.unjudgedClaims);
  if (net.length) {
    const hosts = [...new Set(outcome.network.map((n) => n.host))].sort();
    flags.record(
      { ...c, recipe: 'network', ingredients: hosts, fingerprint: fingerprint('network', hosts) },
      target,
      net,
    );
  }
  return before?.review_status === 'dismissed' && row.review_status === 'open';
}

/** The case counted into the campaign's summary. */
function tally(s: CampaignSummary, { c, cellDir, outcome }: CaseRun, findings: Finding[]): void {
  s.cases++;
  if (c.novel) s.novel++;
  if (outcome.unjudged.length) s.unjudged++;
  if (outcome.unjudgedClaims.length) s.claims_unjudged++;
  const r = (s.by_recipe[c.recipe] ??= { cases: 0, flagged: 0 });
  r.cases++;
  if (outcome.harnessError) s.harness_errors++;
  if (!findings.length) return;
  s.flagged++;
  r.flagged++;
  for (const ch of new Set(findings.map((f) => f.check))) s.by_check[ch]++;
  s.flagged_cases.push({
    fingerprint: c.fingerprint,
    recipe: c.recipe,
    checks: [...new Set(findings.map((f) => (f.claim ? `${f.check}:${f.claim}` : f.check)))],
    cell_dir: cellDir,
  });
}
