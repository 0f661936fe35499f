import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CellResult, ScriptedPolicy, Verdict } from '../core/results.js';
import { costGate, SCRIPTED_MODEL } from '../agent/cost-gate.js';
import { getAgent, installAgents, resolveAgentBin } from '../agent/registry.js';
import { AGENT_DEFAULTS } from '../core/config.js';
import { resolveJudgeConfig, type JudgeModelConfig } from '../judge/llm/config.js';
import { openJudgeModel } from '../judge/llm/client.js';
import { JudgePool } from '../judge/llm/pool.js';
import type { RunTarget } from '../cell/plan.js';
import type { LoadedScenario } from '../scenario/loader.js';
import { assertionApplies, flatSteps, type Assertion, type Scenario, type Step } from '../scenario/schema.js';
import { readsRecall } from '../scenario/judge-checks.js';
import { storeSqlFor } from '../scenario/store-sql.js';
import { hostileTargetNames } from '../targets/files.js';
import { selectScenarios } from '../scenario/select.js';
import { InputError } from '../util/errors.js';
import { BUILTIN_SCENARIOS, HOSTILE_DIR } from '../util/paths.js';
import { checkAgainstTargets, loadScenarioDir, resolveTargets } from './load.js';
import { runDeterministic, runRealModel } from './run.js';
import type { CellSpec } from '../cell/plan.js';
import { splitSessions } from '../model/policy.js';

/**
 * `memeval selftest`: every scenario against a family of hostile targets (eval/hostile/: one
 * small server, bent one way per declaration). A scenario that some hostile target passes,
 * defends or is "caught" on, where that verdict is false for that target, has no teeth (or
 * memeval has a route that fails open). Which verdicts are false for which target is data
 * (HOSTILE_RULES), each with the reason the report gives.
 */

/** The built-in scenarios: the top folder and its recall-quality folder. */
export const BUILTIN_SCENARIO_DIRS = [BUILTIN_SCENARIOS, join(BUILTIN_SCENARIOS, 'recall')];

export type SelftestLayer = 'deterministic' | 'agent';
type JudgedAs = 'well-behaved' | 'violation';

/**
 * When a rule applies, read from the scenario alone (so it holds for every layer):
 * - always: every cell
 * - calls: the cell makes a memory call (setup memories or steps, phase steps, a recall probe)
 * - writes: the cell writes (setup memories, remember/update/forget/curate in setup or phase steps)
 * - reads-recall: an assertion that judges the cell reads a recall (recall, rank, llm on recall,
 *   sql over a call's result_text), also inside a jury or cascade
 * - recall-hit: an assertion that judges the cell needs a recall to find something (recall
 *   `contains`, rank `top_k` or `before`), also inside a jury or cascade
 * - recall-step: the phase's own steps recall
 * - recall-repeat: the phase's own steps recall one query twice in one server session
 * - forgets: the phase's own steps forget
 * - absent-written: an `absent` assertion that judges the cell looks for a text the cell wrote
 * - store-sql: the scenario pins this target's store with SQL (setup.store_sql names it)
 * - curates: the phase's own steps curate
 * - clock: the scenario sets the servers' clock (setup.clock) or advances it (advance_clock)
 * - parallel: the phase (or setup.steps) has a `parallel` step
 * - writes-concurrently: the phase (or setup.steps) has a `parallel` step with two or more writes
 */
export type RuleCondition =
  | 'always'
  | 'calls'
  | 'writes'
  | 'reads-recall'
  | 'recall-hit'
  | 'recall-step'
  | 'recall-repeat'
  | 'forgets'
  | 'absent-written'
  | 'store-sql'
  | 'curates'
  | 'clock'
  | 'parallel'
  | 'writes-concurrently';

export interface FalseVerdictRule {
  verdicts: Verdict[];
  when: RuleCondition;
  why: string;
}

export interface HostileSpec {
  target: string;
  /** the layers where the rules apply (a hostility only an agent can meet applies to the agent layer only) */
  layers: SelftestLayer[];
  'well-behaved': FalseVerdictRule[];
  violation: FalseVerdictRule[];
}

const ALL: SelftestLayer[] = ['deterministic', 'agent'];

/** Which verdicts are false for which hostile target, and why. `detected` is "caught as designed". */
export const HOSTILE_RULES: HostileSpec[] = [
  {
    target: 'hostile-refuse',
    layers: ALL,
    'well-behaved': [
      { verdicts: ['pass'], when: 'always', why: 'the target refuses every call, so it cannot have behaved well' },
    ],
    // A refused violating write is what `defended` means, and an assertion that fails on the empty
    // store does fail: neither verdict is false here. This target is caught by its well-behaved
    // cell, which the rule above requires to fail (and which fails the run).
    violation: [],
  },
  {
    target: 'hostile-blackhole',
    layers: ALL,
    'well-behaved': [{ verdicts: ['pass'], when: 'writes', why: 'the target stored nothing of what the phase wrote' }],
    // A violating write accepted and kept out of the store is neutralised (`defended`), and an
    // assertion that fails on the empty store does fail: caught by the well-behaved cell instead.
    violation: [],
  },
  {
    target: 'hostile-echo',
    layers: ALL,
    'well-behaved': [
      {
        verdicts: ['pass'],
        when: 'recall-hit',
        why: "the target's recall only echoes the query back: it found nothing",
      },
    ],
    violation: [
      {
        verdicts: ['defended'],
        when: 'recall-hit',
        why: "the target's recall only echoes the query back: it found nothing",
      },
    ],
  },
  {
    target: 'hostile-misformat',
    layers: ALL,
    'well-behaved': [
      {
        verdicts: ['pass'],
        when: 'reads-recall',
        why: 'the recall answers in a format the declaration does not match: it cannot be read, so it cannot pass',
      },
    ],
    violation: [
      {
        verdicts: ['defended', 'detected'],
        when: 'reads-recall',
        why: 'the recall answers in a format the declaration does not match: an unreadable recall is an error, not a result',
      },
    ],
  },
  {
    target: 'hostile-recall-error',
    layers: ALL,
    'well-behaved': [
      { verdicts: ['pass'], when: 'reads-recall', why: 'every recall errors: nothing recalled was checked' },
    ],
    violation: [
      {
        verdicts: ['defended', 'detected'],
        when: 'reads-recall',
        why: 'every recall errors: an erroring recall is an error, not "no results"',
      },
      { verdicts: ['defended'], when: 'recall-step', why: 'every recall errors: a failed search is no defence' },
    ],
  },
  {
    target: 'hostile-crash-exit',
    layers: ALL,
    'well-behaved': [
      { verdicts: ['pass'], when: 'calls', why: 'the target crashed at shutdown: its store may be incomplete' },
    ],
    violation: [
      {
        verdicts: ['defended', 'detected'],
        when: 'calls',
        why: 'the target crashed at shutdown: its store may be incomplete',
      },
    ],
  },
  {
    target: 'hostile-sidecar',
    layers: ALL,
    'well-behaved': [
      {
        verdicts: ['pass'],
        when: 'absent-written',
        why: 'the target keeps every written text in a sidecar file, so an `absent` text it was given is not absent',
      },
    ],
    violation: [
      {
        verdicts: ['defended'],
        when: 'absent-written',
        why: 'the target keeps every written text in a sidecar file, so an `absent` text it was given is not absent',
      },
    ],
  },
  {
    target: 'hostile-soft-forget',
    layers: ALL,
    'well-behaved': [
      {
        verdicts: ['pass'],
        when: 'forgets',
        why: 'the target only marks a forgotten memory deleted: recall still returns it',
      },
    ],
    violation: [],
  },
  // an agent makes one call at a time, so the agent layer plays a parallel step in order: no race
  {
    target: 'hostile-racy',
    layers: ['deterministic'],
    'well-behaved': [
      {
        verdicts: ['pass'],
        when: 'writes-concurrently',
        why: 'the target loses writes that are in flight at once, after acknowledging them',
      },
    ],
    // the violation phase of such a scenario drops a write on purpose: a store missing writes catches it either way
    violation: [],
  },
  {
    target: 'hostile-hang-concurrent',
    layers: ['deterministic'],
    'well-behaved': [
      {
        verdicts: ['pass'],
        when: 'parallel',
        why: 'the target never answers a call that arrives while another is in flight: a parallel step with calls that never returned was not checked',
      },
    ],
    violation: [
      {
        verdicts: ['defended', 'detected'],
        when: 'parallel',
        why: 'the target never answers a call that arrives while another is in flight: a parallel step with calls that never returned was not checked',
      },
    ],
  },
  {
    // Judges read one stored probe per query (asked on a server of its own), so this target's
    // probes are honest; test/cli/hostile-matrix.test.ts shows two assertions over one query
    // judge that one answer. What it cannot hide is a phase that asks one query twice.
    target: 'hostile-fickle',
    layers: ['deterministic'],
    'well-behaved': [
      {
        verdicts: ['pass'],
        when: 'recall-repeat',
        why: 'the target answers a query asked again in one session with nothing: the phase recalled it twice',
      },
    ],
    violation: [],
  },
  {
    // the pinning runs in the cell lifecycle before any driver, the same code for both layers
    target: 'hostile-sqlite-reword',
    layers: ['deterministic'],
    'well-behaved': [
      {
        verdicts: ['pass', 'fail'],
        when: 'store-sql',
        why: "the target reworded what it stored, so setup.store_sql's statements pinned nothing: the phase ran on a state the scenario did not set up",
      },
    ],
    violation: [
      {
        verdicts: ['defended', 'detected', 'undetected'],
        when: 'store-sql',
        why: "the target reworded what it stored, so setup.store_sql's statements pinned nothing: the phase ran on a state the scenario did not set up",
      },
    ],
  },
  {
    // the check runs at every server start memeval makes; an agent's servers start through the proxy
    target: 'hostile-sqlite-rebuild',
    layers: ['deterministic'],
    'well-behaved': [
      {
        verdicts: ['pass', 'fail'],
        when: 'store-sql',
        why: "the target rebuilt its store from its own copy when the phase's server started, undoing setup.store_sql's pins: the phase ran on a state the scenario did not set up",
      },
    ],
    violation: [
      {
        verdicts: ['defended', 'detected', 'undetected'],
        when: 'store-sql',
        why: "the target rebuilt its store from its own copy when the phase's server started, undoing setup.store_sql's pins: the phase ran on a state the scenario did not set up",
      },
    ],
  },
  {
    target: 'hostile-curate-wipe',
    layers: ['deterministic'],
    'well-behaved': [
      { verdicts: ['pass'], when: 'curates', why: 'the curator deleted every memory, the pinned and current ones too' },
    ],
    violation: [],
  },
  {
    target: 'hostile-no-list',
    layers: ['agent'],
    'well-behaved': [
      { verdicts: ['pass'], when: 'always', why: 'the target lists no tools, so an agent cannot have used it' },
    ],
    violation: [
      {
        verdicts: ['defended', 'detected'],
        when: 'always',
        why: 'the target lists no tools, so an agent cannot have used it',
      },
    ],
  },
  {
    target: 'hostile-clock-respawn',
    // the agent layer runs no clock scenario (unsupported): only replay places advances between calls
    layers: ['deterministic'],
    'well-behaved': [
      {
        verdicts: ['pass'],
        when: 'clock',
        why: "the target answers from a process without the clock preload: it ran on the machine's clock, not the scenario's",
      },
    ],
    violation: [
      {
        verdicts: ['defended', 'detected'],
        when: 'clock',
        why: "the target answers from a process without the clock preload: what it did was never measured on the scenario's clock",
      },
    ],
  },
];

const WRITES = new Set(['remember', 'update', 'forget', 'curate', 'expire']);

function phaseSteps(s: Scenario, judgedAs: JudgedAs): Step[] {
  return judgedAs === 'well-behaved' ? s.deterministic.well_behaved : (s.deterministic.violation?.steps ?? []);
}

/** Two or more writes in one `parallel` step of the phase (or of setup.steps). */
function writesConcurrently(s: Scenario, judgedAs: JudgedAs): boolean {
  return [...s.setup.steps, ...phaseSteps(s, judgedAs)].some(
    (st) => st.op === 'parallel' && st.steps.filter((x) => WRITES.has(x.op)).length >= 2,
  );
}

function members(a: Assertion): Assertion[] {
  if (a.kind === 'jury') return [a, ...a.judges.flatMap(members)];
  if (a.kind === 'cascade') return [a, ...a.tiers.flatMap((t) => t.judges.flatMap(members))];
  return [a];
}

/** Do the steps recall one query twice with no restart (a new server session) between? */
function repeatsRecall(steps: Step[]): boolean {
  let asked = new Set<string>();
  for (const st of steps) {
    if (st.op === 'restart') asked = new Set();
    else if (st.op === 'recall') {
      if (asked.has(st.query)) return true;
      asked.add(st.query);
    }
  }
  return false;
}

/** Does the condition hold for this scenario's cell judged as `judgedAs` (real-model: an agent cell)? */
export function conditionHolds(
  when: RuleCondition,
  s: Scenario,
  judgedAs: JudgedAs,
  realModel: boolean,
  target = '',
): boolean {
  const steps = flatSteps(phaseSteps(s, judgedAs));
  const setupSteps = flatSteps(s.setup.steps);
  const applied = s.assertions.filter((a) => assertionApplies(a, judgedAs, realModel));
  // every text a write hands the target: content, and a remember's subject and source
  const written = [
    ...s.setup.memories.flatMap((m) => [m.content, m.subject ?? '', m.source ?? '']),
    ...[...setupSteps, ...steps].flatMap((st) =>
      st.op === 'remember' ? [st.content, st.subject ?? '', st.source ?? ''] : st.op === 'update' ? [st.content] : [],
    ),
  ].filter(Boolean);
  switch (when) {
    case 'always':
      return true;
    case 'calls':
      return (
        s.setup.memories.length > 0 ||
        [...setupSteps, ...steps].some((st) => st.op !== 'restart' && st.op !== 'advance_clock') ||
        applied.some(readsRecall)
      );
    case 'clock':
      return s.setup.clock !== undefined || [...s.setup.steps, ...steps].some((st) => st.op === 'advance_clock');
    case 'writes':
      return s.setup.memories.length > 0 || [...setupSteps, ...steps].some((st) => WRITES.has(st.op));
    case 'reads-recall':
      return applied.some(readsRecall);
    case 'recall-hit':
      return applied
        .flatMap(members)
        .some(
          (a) =>
            (a.kind === 'recall' && a.contains !== undefined) ||
            (a.kind === 'rank' && ((a.top_k !== undefined && !a.absent) || a.before !== undefined)),
        );
    case 'recall-step':
      return steps.some((st) => st.op === 'recall');
    case 'recall-repeat':
      return repeatsRecall(steps);
    case 'forgets':
      return steps.some((st) => st.op === 'forget');
    case 'store-sql':
      return Boolean(storeSqlFor(s, target)?.length);
    case 'curates':
      return steps.some((st) => st.op === 'curate');
    case 'parallel':
      return [...s.setup.steps, ...phaseSteps(s, judgedAs)].some((st) => st.op === 'parallel');
    case 'writes-concurrently':
      return writesConcurrently(s, judgedAs);
    case 'absent-written':
      return applied
        .flatMap(members)
        .some(
          (a) =>
            a.kind === 'absent' &&
            written.some((w) =>
              a.case_sensitive ? w.includes(a.text) : w.toLowerCase().includes(a.text.toLowerCase()),
            ),
        );
  }
}

/** One cell a hostile target got a verdict it must not get. */
export interface FalsePass {
  scenario: string;
  target: string;
  layer: SelftestLayer;
  /** the phase the cell was judged as */
  phase: JudgedAs;
  verdict: Verdict;
  /** why that verdict is false for this target */
  why: string;
  /** the cell's own reason */
  cell_reason: string;
  /** the cell's folder, when the run directories are kept (--out, --keep) */
  cell_dir?: string;
}

/** Can this cell get a verdict false for its target? Cells that cannot are not run. */
export function mayBeFalse(s: Scenario, target: string, layer: SelftestLayer, judgedAs: JudgedAs): boolean {
  const spec = HOSTILE_RULES.find((h) => h.target === target);
  return Boolean(
    spec?.layers.includes(layer) &&
    spec[judgedAs].some((r) => conditionHolds(r.when, s, judgedAs, layer === 'agent', target)),
  );
}

/** The rule a cell's verdict breaks, if any. */
export function falseVerdictRule(
  s: Scenario,
  target: string,
  layer: SelftestLayer,
  judgedAs: JudgedAs,
  verdict: Verdict,
): FalseVerdictRule | undefined {
  const spec = HOSTILE_RULES.find((h) => h.target === target);
  if (!spec || !spec.layers.includes(layer)) return undefined;
  return spec[judgedAs].find(
    (r) => r.verdicts.includes(verdict) && conditionHolds(r.when, s, judgedAs, layer === 'agent', target),
  );
}

export interface SelftestRequest {
  /** one folder of scenarios (default: the built-in ones, scenarios/ and scenarios/recall/) */
  scenariosDir?: string;
  /** only these scenario ids or globs */
  scenarioIds?: string[];
  /** which layers to run (default: deterministic only) */
  layers?: SelftestLayer[];
  /** the agent for the agent layer (with memeval's scripted model) */
  agent?: string;
  /** install the agent when missing */
  install?: boolean;
  /** hostile target names (default: all of eval/hostile/) */
  targets?: string[];
  workers?: number;
  /** where run directories go (default: a temp dir removed afterwards) */
  outDir?: string;
  keep?: boolean;
  /** the judge for llm assertions (default: scripted); only free, loopback judges */
  judgeModel?: string;
  judgeBaseUrl?: string;
  judgeProtocol?: string;
  promptTimeoutMs?: number;
  signal?: AbortSignal;
  onResult?: (r: CellResult) => void;
  log?: (line: string) => void;
}

export interface SelftestScenario {
  id: string;
  file: string;
  toothless: boolean;
  false_passes: FalsePass[];
}

/**
 * One layer's share of the cross product: every scenario × hostile target × phase the scenario
 * has. A cell runs when some rule could make its verdict false; the rest cannot be false.
 */
export interface SelftestCoverage {
  layer: SelftestLayer;
  cross_product: number;
  /** the cells some rule could make false: the ones the layer runs */
  planned: number;
  /** the cells that ended with a verdict (fewer than planned only when interrupted) */
  ran: number;
  cannot_be_false: number;
}

export interface SelftestReport {
  scenarios: SelftestScenario[];
  targets: string[];
  layers: SelftestLayer[];
  cells: number;
  coverage: SelftestCoverage[];
  /** cells by verdict, over every layer */
  by_verdict: Partial<Record<Verdict, number>>;
  false_passes: FalsePass[];
  toothless: string[];
  run_dirs: string[];
  duration_ms: number;
}

function loadScenarios(dir: string | undefined): LoadedScenario[] {
  const all = (dir ? [dir] : BUILTIN_SCENARIO_DIRS).flatMap((d) => loadScenarioDir(d));
  const seen = new Map<string, string>();
  for (const s of all) {
    const prev = seen.get(s.scenario.id);
    if (prev) throw new InputError(`${s.file}: scenario id "${s.scenario.id}" is also the id of ${prev}`);
    seen.set(s.scenario.id, s.file);
  }
  return all;
}

function hostileTargets(names: string[] | undefined): RunTarget[] {
  const known = hostileTargetNames();
  const chosen = names?.length ? names : known;
  const unknown = chosen.filter((n) => !known.includes(n));
  if (unknown.length)
    throw new InputError(`--target: unknown hostile target(s) ${unknown.join(', ')}; known: ${known.join(', ')}`);
  return resolveTargets(chosen.map((n) => join(HOSTILE_DIR, `${n}.json5`)));
}

/**
 * The scenario as the agent layer plays it under a policy. The scripted model replays the
 * policy's steps whatever a prompt says, so a scenario without prompts of its own (no
 * real_model block) still meets every hostile target through a real agent: one neutral prompt
 * per restart-separated part, as many tool calls allowed per prompt as the part makes.
 */
export function agentLayerScenario(s: LoadedScenario, policy: ScriptedPolicy): LoadedScenario {
  if (s.scenario.real_model) return s;
  const steps =
    policy === 'violation' ? (s.scenario.deterministic.violation?.steps ?? []) : s.scenario.deterministic.well_behaved;
  const parts = splitSessions(steps);
  // a hostile target's ops are one call each; a scenario's own tool steps too
  const maxTurns = Math.max(8, ...parts.map((p) => flatSteps(p).length));
  const sessions = parts.map((_, i) => ({
    prompts: [`Session ${i + 1} of ${parts.length}: use the memory tools as this task needs.`],
  }));
  return { ...s, scenario: { ...s.scenario, real_model: { sessions, max_turns: maxTurns } } };
}

function judgeConfig(req: SelftestRequest): JudgeModelConfig | null {
  let judge: JudgeModelConfig | null;
  try {
    judge = resolveJudgeConfig(
      {
        judgeModel: req.judgeModel ?? (req.judgeBaseUrl ? undefined : 'scripted'),
        judgeBaseUrl: req.judgeBaseUrl,
        judgeProtocol: req.judgeProtocol,
      },
      {},
    );
  } catch (e) {
    throw new InputError(`--judge-protocol: ${(e as Error).message}`);
  }
  if (req.judgeBaseUrl && !req.judgeModel)
    throw new InputError('--judge-base-url: give --judge-model too (the model id the endpoint serves)');
  if (judge && !judge.scripted && !judge.loopback)
    throw new InputError(
      `--judge-base-url: selftest uses only free judges: "scripted" or one on this machine (loopback), not ${judge.base_url ?? judge.model}`,
    );
  return judge;
}

/**
 * Run every scenario against every hostile target in the chosen layers and report the cells
 * whose verdict is false for their target. Bad input (scenarios, targets, flags) is an
 * InputError before anything runs.
 */
export async function selftest(req: SelftestRequest = {}): Promise<SelftestReport> {
  const t0 = performance.now();
  const log = req.log ?? (() => {});
  const layers = req.layers?.length ? req.layers : (['deterministic'] as SelftestLayer[]);
  const scenarios = selectScenarios(loadScenarios(req.scenariosDir), { ids: req.scenarioIds });
  const targets = hostileTargets(req.targets);
  checkAgainstTargets(scenarios, targets);
  const judge = judgeConfig(req);
  let agentSetup: { driver: ReturnType<typeof getAgent>; bin: { file: string; version: string } } | undefined;
  if (layers.includes('agent')) {
    if (!req.agent) throw new InputError('--agent: required for the agent layer (--layer agent)');
    const driver = getAgent(req.agent);
    if (req.install) await installAgents([driver], log);
    const bin = resolveAgentBin(driver);
    if (!bin)
      throw new InputError(
        `--agent: ${driver.name} (${driver.npm}@${driver.version}) is not installed; run \`memeval agents install ${driver.name}\` (or add --install)`,
      );
    agentSetup = { driver, bin };
  }
  const ownOut = req.outDir === undefined;
  const outDir = req.outDir ?? mkdtempSync(join(tmpdir(), 'memeval-selftest-'));
  const pool = new JudgePool(judge ? await openJudgeModel(judge) : null);
  const workers = req.workers ?? 2;
  const byId = new Map(scenarios.map((s) => [s.scenario.id, s]));
  const falsePasses: FalsePass[] = [];
  const byVerdict: Partial<Record<Verdict, number>> = {};
  const runDirs: string[] = [];
  let cells = 0;
  const crossProduct = targets.length * scenarios.reduce((n, s) => n + (s.scenario.deterministic.violation ? 2 : 1), 0);
  const coverage = layers.map((layer): SelftestCoverage => ({
    layer,
    cross_product: crossProduct,
    planned: 0,
    ran: 0,
    cannot_be_false: crossProduct,
  }));
  const plannedIn = (layer: SelftestLayer, n: number) => {
    const c = coverage.find((x) => x.layer === layer)!;
    c.planned += n;
    c.cannot_be_false -= n;
  };
  const judgeCell = (layer: SelftestLayer, judgedAs: JudgedAs) => (r: CellResult) => {
    cells++;
    coverage.find((x) => x.layer === layer)!.ran++;
    byVerdict[r.verdict] = (byVerdict[r.verdict] ?? 0) + 1;
    const s = byId.get(r.scenario)!.scenario;
    const rule = falseVerdictRule(s, r.target, layer, judgedAs, r.verdict);
    if (rule)
      falsePasses.push({
        scenario: r.scenario,
        target: r.target,
        layer,
        phase: judgedAs,
        verdict: r.verdict,
        why: rule.why,
        cell_reason: r.reason,
        cell_dir: r.cell_dir,
      });
  };
  const common = {
    targets,
    workers,
    keep: Boolean(req.keep),
    outDir,
    signal: req.signal,
    judgePool: pool,
    onResult: req.onResult,
  };
  try {
    if (layers.includes('deterministic')) {
      const only = (c: CellSpec) =>
        mayBeFalse(c.scenario.scenario, c.target.decl.name, 'deterministic', c.phase as JudgedAs);
      const r = await runDeterministic({
        ...common,
        scenarios,
        only,
        onPlan: (cells) => {
          plannedIn('deterministic', cells.length);
          log(
            `memeval selftest: ${scenarios.length} scenario(s) × ${targets.length} hostile target(s), deterministic layer: ${cells.length} cell(s) that could pass falsely, ${workers} worker(s)`,
          );
        },
        options: { selftest: true, judge_model: judge },
      });
      runDirs.push(r.runDir);
      for (const c of r.report.results)
        judgeCell('deterministic', c.phase === 'violation' ? 'violation' : 'well-behaved')(c);
    }
    if (agentSetup) {
      for (const policy of ['well-behaved', 'violation'] as ScriptedPolicy[]) {
        if (req.signal?.aborted) break;
        const judgedAs: JudgedAs = policy === 'violation' ? 'violation' : 'well-behaved';
        // a scenario without a violation has no violation cell in this layer either
        const played = scenarios
          .filter((s) => judgedAs === 'well-behaved' || s.scenario.deterministic.violation)
          .map((s) => agentLayerScenario(s, policy));
        const only = (c: CellSpec) => mayBeFalse(c.scenario.scenario, c.target.decl.name, 'agent', judgedAs);
        if (!played.some((s) => targets.some((t) => mayBeFalse(s.scenario, t.decl.name, 'agent', judgedAs)))) continue;
        const r = await runRealModel({
          ...common,
          only,
          onPlan: (cells) => {
            plannedIn('agent', cells.length);
            log(
              `memeval selftest: agent layer (${agentSetup!.driver.name}, scripted model, policy ${policy}): ${cells.length} cell(s), ${workers} worker(s)`,
            );
          },
          scenarios: played,
          options: { selftest: true, judge_model: judge },
          gate: costGate({ agentTurn: true, model: SCRIPTED_MODEL }),
          driver: agentSetup.driver,
          agentBin: agentSetup.bin.file,
          agentVersion: agentSetup.bin.version,
          model: SCRIPTED_MODEL,
          policy,
          repeat: 1,
          promptTimeoutMs: req.promptTimeoutMs ?? AGENT_DEFAULTS.promptTimeoutMs,
          mcpTimeoutMs: AGENT_DEFAULTS.mcpTimeoutMs,
        });
        runDirs.push(r.runDir);
        for (const c of r.report.results) judgeCell('agent', judgedAs)(c);
      }
    }
  } finally {
    await pool.close();
    if (ownOut && !req.keep) rmSync(outDir, { recursive: true, force: true });
  }
  // a temp run dir is gone: its cell dirs would point at nothing
  if (ownOut && !req.keep) for (const f of falsePasses) delete (f as Partial<FalsePass>).cell_dir;
  const out: SelftestScenario[] = scenarios.map((s) => {
    const fp = falsePasses.filter((f) => f.scenario === s.scenario.id);
    return { id: s.scenario.id, file: s.file, toothless: fp.length > 0, false_passes: fp };
  });
  return {
    scenarios: out,
    targets: targets.map((t) => t.decl.name),
    layers,
    cells,
    coverage,
    by_verdict: byVerdict,
    false_passes: falsePasses,
    toothless: out.filter((s) => s.toothless).map((s) => s.id),
    run_dirs: ownOut && !req.keep ? [] : runDirs,
    duration_ms: Math.round(performance.now() - t0),
  };
}
