import type { Verdict } from '../core/results.js';
import { absentTexts, needsRecallHit, reads, readsRecall, withMembers } from '../scenario/kinds.js';
import { agentLayerUnsupported } from '../scenario/kill-checks.js';
import { assertionApplies, flatSteps, type Assertion, type Scenario, type Step } from '../scenario/schema.js';
import { callsTarget, startsNewSession, STEP_OPS, usesNamespace, writes } from '../scenario/step-ops.js';
import { storeSqlFor } from '../scenario/store-sql.js';

/**
 * The hostile rules of `memeval selftest`: for each hostile target of eval/hostile/ (one small
 * server, bent one way per declaration), which verdicts are false for it, when (a condition read
 * from the scenario alone), why, and which verdicts show its hostility was met (`exposed`). A
 * scenario some hostile target passes, defends or is "caught" on where that is false has no
 * teeth; one whose cells never met a hostility it is exposed to is not proven.
 */

export type SelftestLayer = 'deterministic' | 'agent';
export type JudgedAs = 'well-behaved' | 'violation';

/** The phase a deterministic cell is judged as. */
export const judgedAsOf = (phase: string): JudgedAs => (phase === 'violation' ? 'violation' : 'well-behaved');

/**
 * When a rule applies, read from the scenario alone (so it holds for every layer):
 * - always: every cell
 * - calls: the cell makes a memory call (setup memories or steps, phase steps, a recall probe)
 * - writes: the cell writes (setup memories, remember/update/forget/curate in setup or phase steps)
 * - reads-recall: an assertion that judges the cell reads a recall (recall, rank, llm on recall),
 *   also inside a jury or cascade; or reads what calls answered (sql over result_text or
 *   result_items, a grounded llm check) in a cell whose calls hold a recall (its setup or phase
 *   steps recall: selftest's agents run on the scripted model, which makes exactly those) — the
 *   report of a curator's dry run is no recall
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
 * - provenance: an assertion that judges the cell needs a memory stored with a given `source`
 *   (a `count` with `source` that a store without such a memory fails), also inside a jury or cascade
 * - namespaced: the phase (or setup.steps) writes to or searches in a namespace (a project), as a
 *   scenario about what one project's recall may show of another's does
 * - kills-acknowledged: the phase (or setup.steps) kills the server with SIGKILL after a write in
 *   the same server session (since the sequence began or the last restart or kill), or during a
 *   write it issues whole (`during: "write"`, which a server that answers before it stores has
 *   acknowledged by the time it is killed)
 * - kills-mid-write: the phase (or setup.steps) kills the server `during: "write"`
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
  | 'writes-concurrently'
  | 'provenance'
  | 'namespaced'
  | 'kills-acknowledged'
  | 'kills-mid-write';

export interface FalseVerdictRule {
  verdicts: Verdict[];
  when: RuleCondition;
  why: string;
}

/** A verdict (and, for `error` or `invalid`, the reason) that shows the target's hostility was met and exposed. */
export interface Exposure {
  verdicts: Verdict[];
  reason?: RegExp;
}

export interface HostileSpec {
  target: string;
  /** the layers where the rules apply (a hostility only an agent can meet applies to the agent layer only) */
  layers: SelftestLayer[];
  /**
   * How a cell of each phase shows the hostility was met: a cell some rule applies to proves
   * the scenario only with one of these. Anything else (unsupported, an error of another cause)
   * tested nothing about this target: the scenario is not proven.
   */
  exposed: Record<JudgedAs, Exposure[]>;
  'well-behaved': FalseVerdictRule[];
  violation: FalseVerdictRule[];
}

const ALL: SelftestLayer[] = ['deterministic', 'agent'];

/** The verdict's reason when a scenario's guard assertion failed (judge/verdict.ts). */
const PRECONDITION = /the scenario's precondition did not hold/;

/** Which verdicts are false for which hostile target, and why. `detected` is "caught as designed". */
export const HOSTILE_RULES: HostileSpec[] = [
  {
    target: 'hostile-refuse',
    layers: ALL,
    exposed: {
      'well-behaved': [{ verdicts: ['fail'] }, { verdicts: ['error'], reason: /refused|was not stored by the target/ }],
      violation: [],
    },
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
    exposed: {
      'well-behaved': [
        { verdicts: ['fail'] },
        { verdicts: ['error'], reason: /was not stored by the target/ },
        // nothing stored, so the recall a guard needs found nothing: the cell refuses to judge
        { verdicts: ['error'], reason: PRECONDITION },
      ],
      violation: [],
    },
    'well-behaved': [{ verdicts: ['pass'], when: 'writes', why: 'the target stored nothing of what the phase wrote' }],
    // A violating write accepted and kept out of the store is neutralised (`defended`), and an
    // assertion that fails on the empty store does fail: caught by the well-behaved cell instead.
    violation: [],
  },
  {
    target: 'hostile-echo',
    layers: ALL,
    exposed: {
      // a guard that needs the recall to find something fails on an echo: the cell refuses to judge
      'well-behaved': [
        { verdicts: ['fail'] },
        { verdicts: ['error'], reason: /echo of the query/ },
        { verdicts: ['error'], reason: PRECONDITION },
      ],
      violation: [
        { verdicts: ['detected'] },
        { verdicts: ['error'], reason: /echo of the query/ },
        { verdicts: ['error'], reason: PRECONDITION },
        // a rank over the echo's empty results saw no ordering: no catch
        { verdicts: ['error'], reason: /failed without observing the violation/ },
      ],
    },
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
    exposed: {
      'well-behaved': [{ verdicts: ['error'], reason: /cannot be read as results/ }],
      violation: [{ verdicts: ['error'], reason: /cannot be read as results/ }],
    },
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
    exposed: {
      'well-behaved': [{ verdicts: ['error'], reason: /refused it or answered with an error/ }],
      violation: [{ verdicts: ['detected'] }, { verdicts: ['error'], reason: /refused it or answered with an error/ }],
    },
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
    exposed: {
      'well-behaved': [{ verdicts: ['fail'] }, { verdicts: ['error'], reason: /exited with code 70/ }],
      violation: [{ verdicts: ['error'], reason: /exited with code 70/ }],
    },
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
    exposed: { 'well-behaved': [{ verdicts: ['fail'] }], violation: [{ verdicts: ['detected'] }] },
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
    exposed: { 'well-behaved': [{ verdicts: ['fail'] }], violation: [] },
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
    exposed: { 'well-behaved': [{ verdicts: ['fail'] }], violation: [] },
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
  // an agent cannot be killed among its own calls: kill scenarios are unsupported in the agent layer
  {
    target: 'hostile-lose-on-kill',
    layers: ['deterministic'],
    exposed: { 'well-behaved': [{ verdicts: ['fail'] }], violation: [] },
    'well-behaved': [
      {
        verdicts: ['pass'],
        when: 'kills-acknowledged',
        why: 'the target acknowledges writes it keeps only in memory until it shuts down: a SIGKILL lost what it had acknowledged',
      },
    ],
    // the violation phase of such a scenario drops a write on purpose: a store missing writes catches it either way
    violation: [],
  },
  {
    target: 'hostile-truncate-on-kill',
    layers: ['deterministic'],
    exposed: { 'well-behaved': [{ verdicts: ['fail'] }], violation: [] },
    'well-behaved': [
      {
        verdicts: ['pass'],
        when: 'kills-mid-write',
        why: 'the target rewrites its whole file in place: killed while it wrote, it left the file truncated and a line half written',
      },
    ],
    violation: [],
  },
  {
    target: 'hostile-hang-concurrent',
    layers: ['deterministic'],
    exposed: {
      'well-behaved': [{ verdicts: ['error'], reason: /never returned/ }],
      violation: [{ verdicts: ['error'], reason: /never returned/ }],
    },
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
    exposed: { 'well-behaved': [{ verdicts: ['fail'] }], violation: [] },
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
    exposed: {
      'well-behaved': [{ verdicts: ['error'], reason: /setup\.store_sql/ }],
      violation: [{ verdicts: ['error'], reason: /setup\.store_sql/ }],
    },
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
    exposed: {
      'well-behaved': [{ verdicts: ['error'], reason: /setup\.store_sql|pin/ }],
      violation: [{ verdicts: ['error'], reason: /setup\.store_sql|pin/ }],
    },
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
    exposed: { 'well-behaved': [{ verdicts: ['fail'] }], violation: [] },
    'well-behaved': [
      { verdicts: ['pass'], when: 'curates', why: 'the curator deleted every memory, the pinned and current ones too' },
    ],
    violation: [],
  },
  {
    target: 'hostile-no-list',
    layers: ['agent'],
    exposed: { 'well-behaved': [{ verdicts: ['invalid'] }], violation: [{ verdicts: ['invalid'] }] },
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
    target: 'hostile-launder',
    layers: ALL,
    exposed: { 'well-behaved': [{ verdicts: ['fail'] }], violation: [] },
    'well-behaved': [
      {
        verdicts: ['pass'],
        when: 'provenance',
        why: "the target stores every write as the user's own: no memory keeps the source it was written with",
      },
    ],
    // a violating write laundered as the user's is still caught or not by what it says: nothing here is false
    violation: [],
  },
  {
    target: 'hostile-namespace-leak',
    layers: ALL,
    exposed: { 'well-behaved': [{ verdicts: ['fail'] }], violation: [] },
    'well-behaved': [
      {
        verdicts: ['pass'],
        when: 'namespaced',
        why: "the target's recall searches every project: what one project stored shows in another's recall",
      },
    ],
    // a violation that writes into the wrong project is caught or not by what that project's recall shows
    violation: [],
  },
  {
    target: 'hostile-clock-respawn',
    // the agent layer runs no clock scenario (unsupported): only replay places advances between calls
    layers: ['deterministic'],
    exposed: {
      'well-behaved': [{ verdicts: ['error'], reason: /without the clock preload/ }],
      violation: [{ verdicts: ['error'], reason: /without the clock preload/ }],
    },
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

function phaseSteps(s: Scenario, judgedAs: JudgedAs): Step[] {
  return judgedAs === 'well-behaved' ? s.deterministic.well_behaved : (s.deterministic.violation?.steps ?? []);
}

/** Two or more writes in one `parallel` step of the phase (or of setup.steps). */
function writesConcurrently(s: Scenario, judgedAs: JudgedAs): boolean {
  return [...s.setup.steps, ...phaseSteps(s, judgedAs)].some(
    (st) => st.op === 'parallel' && st.steps.filter((x) => writes(x.op)).length >= 2,
  );
}

/** A SIGKILL kill step after a write of its server session, or during a write issued whole. */
function killsAcknowledged(steps: Step[]): boolean {
  let wrote = false;
  for (const st of steps) {
    if (st.op === 'kill' && st.signal === 'SIGKILL' && (wrote || st.during === 'write')) return true;
    if (startsNewSession(st)) wrote = false;
    else if (st.op === 'parallel' ? st.steps.some((x) => writes(x.op)) : writes(st.op)) wrote = true;
  }
  return false;
}

/** Do the steps recall one query twice with no restart (a new server session) between? */
function repeatsRecall(steps: Step[]): boolean {
  let asked = new Set<string>();
  for (const st of steps) {
    if (startsNewSession(st)) asked = new Set();
    else if (st.op === 'recall') {
      if (asked.has(st.query)) return true;
      asked.add(st.query);
    }
  }
  return false;
}

/** A count that needs at least one memory with a given source: a store that keeps no source fails it. */
function needsSource(a: Assertion): boolean {
  if (a.kind !== 'count' || a.source === undefined) return false;
  return a.op === 'gt' || (a.op === 'gte' && a.value >= 1) || (a.op === 'eq' && a.value >= 1);
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
      STEP_OPS[st.op].writes
        ? [
            'content' in st ? st.content : '',
            'subject' in st ? (st.subject ?? '') : '',
            'source' in st ? (st.source ?? '') : '',
          ]
        : [],
    ),
  ].filter(Boolean);
  switch (when) {
    case 'always':
      return true;
    case 'calls':
      return s.setup.memories.length > 0 || [...setupSteps, ...steps].some(callsTarget) || applied.some(readsRecall);
    case 'clock':
      return s.setup.clock !== undefined || [...s.setup.steps, ...steps].some((st) => st.op === 'advance_clock');
    case 'writes':
      return s.setup.memories.length > 0 || [...setupSteps, ...steps].some((st) => writes(st.op));
    case 'reads-recall':
      return (
        applied.some((a) => reads(a, 'recall-probe')) ||
        // selftest's agents run on the scripted model, which makes exactly the phase's steps
        (applied.some(readsRecall) && [...setupSteps, ...steps].some((st) => st.op === 'recall'))
      );
    case 'recall-hit':
      return applied.some(needsRecallHit);
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
    case 'namespaced':
      return usesNamespace([...s.setup.steps, ...phaseSteps(s, judgedAs)]);
    case 'provenance':
      return withMembers(applied).some(needsSource);
    case 'kills-acknowledged':
      return killsAcknowledged(s.setup.steps) || killsAcknowledged(phaseSteps(s, judgedAs));
    case 'kills-mid-write':
      return [...s.setup.steps, ...phaseSteps(s, judgedAs)].some((st) => st.op === 'kill' && st.during === 'write');
    case 'absent-written':
      return absentTexts(applied).some((t) =>
        written.some((w) => (t.caseSensitive ? w.includes(t.text) : w.toLowerCase().includes(t.text.toLowerCase()))),
      );
  }
}

/** Can this cell get a verdict false for its target? Cells that cannot are not run. */
export function mayBeFalse(s: Scenario, target: string, layer: SelftestLayer, judgedAs: JudgedAs): boolean {
  const spec = HOSTILE_RULES.find((h) => h.target === target);
  // the agent layer makes such a scenario unsupported by design: its cells can be neither false nor exposing
  if (layer === 'agent' && agentLayerUnsupported(s)) return false;
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
