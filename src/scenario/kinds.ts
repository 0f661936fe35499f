import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { GROUNDED_CHECKS } from './llm-schema.js';
import { pluginModuleProblem } from './plugin-check.js';
import type { Assertion, Comparator } from './schema.js';

/**
 * One record per assertion kind: everything the rest of memeval asks about a kind, so a set or
 * a rule about kinds is derived here rather than written again as a `kind === …` chain. The
 * record is typed by the kind, so a kind added to the schema does not compile until it says
 * what it reads, what it must have observed to decide, and which broken inputs make it `error`.
 * The judge itself is the other half of the record (judge/registry.ts `JUDGES`, typed the same
 * way); it lives above this folder because judges read evidence, which scenarios may not import.
 */

export type Kind = Assertion['kind'];
export type AssertionOf<K extends Kind> = Extract<Assertion, { kind: K }>;

/** What a judge reads. `recall-text` is what recalls answered in the calls log (not a probe). */
export const SOURCES = [
  'store',
  'calls',
  'recall-probe',
  'recall-text',
  'transcript',
  'fixture',
  'program',
  'model',
  'agent-usage',
  'provider-calls',
  'store-sql',
  // the snapshot's check of the store's files (evidence store_integrity)
  'store-integrity',
  // memeval's own record of the writes it issued and how each was answered (evidence `writes`)
  'writes',
] as const;
export type Source = (typeof SOURCES)[number];

/**
 * Broken inputs of a judge (memeval's own inputs, not the target's behaviour). Each must make
 * the judgment `error` (or a fail-level abstention, which the verdict makes `error`): never a
 * pass, and never a fail, which in a violation phase would read as the violation caught.
 * test/unit/judge/input-mutations.test.ts applies every kind's mutations to its real judge.
 */
export const INPUT_MUTATIONS = {
  'view-broken': 'the memories view cannot be read (a column the declaration names is missing)',
  'table-missing': 'the evidence table the judge reads is absent (an older evidence, another layer)',
  'probe-missing': 'no stored recall probe for the query',
  'probe-refused': "the target refused the probe's recall",
  'probe-unreadable': "the probe's answer is not in the declared format",
  'transcript-missing': 'no final answer was recorded',
  'fixture-gone': 'the fixture is removed (rejudge), so nothing in it can be read or run',
  'program-usage-exit': 'the program rejected its arguments: exit 2 with a usage message',
  'program-silent': 'the program exited 0 and printed nothing',
  'program-stderr-only': 'the program printed only to stderr',
  'plugin-null': 'the plug-in answered with a null `actual` (it saw nothing)',
  'plugin-garbage': 'the plug-in answered something that is not a judgment',
  'plugin-throws': 'the plug-in threw',
  'plugin-hangs': 'the plug-in never returned',
  'model-missing': 'no judge model is configured',
  'model-garbage': "the judge model's answer does not parse",
  'usage-unreported': 'the agent did not report the figure the budget bounds',
  'members-undecided': 'every member judge of the composition errored',
  'integrity-unchecked': 'the store_integrity table holds no row: no file of the store was checked',
  'writes-unacknowledged':
    'the writes table holds no write the target acknowledged: nothing whose durability could be checked',
} as const;
export type InputMutation = keyof typeof INPUT_MUTATIONS;

/** How rejudge treats a kind: judged again from the evidence, or kept (it reads the removed fixture). */
export type RejudgeRule = 'evidence' | 'fixture' | 'fixture-files';

export interface KindTraits<A extends Assertion> {
  /** what the judge reads, for this assertion (an sql query reads the tables it names) */
  reads(a: A): readonly Source[];
  /** the judges composed in this one (a jury's judges, a cascade's tiers), with their field paths */
  members(a: A): readonly (readonly [path: string, judge: Assertion])[];
  /** why it may not sit inside a jury or cascade, or true */
  composable: true | string;
  /** why this assertion may not run in its phase, or undefined */
  phaseProblem(a: A): string | undefined;
  /** runs in the time-limited judge process: the scenario writes its work (SQL, a regex, a module), which may never end */
  bounded(a: A): boolean;
  /** the queries whose stored recall probe it reads (each asked once per cell, after the snapshot) */
  probes(a: A): readonly string[];
  /** it passes only when a recall finds something (a recall that finds nothing must fail it) */
  needsRecallHit(a: A): boolean;
  /** it holds when a recall finds nothing (so a server that forgot everything passes it unchecked) */
  holdsOnEmptyRecall(a: A): boolean;
  /** it holds whatever the target does when nothing is stored */
  holdsOnEmptyStore(a: A): boolean;
  /** texts it expects nowhere (read from the fixture's files before a probe could write) */
  absentTexts(a: A): readonly { text: string; caseSensitive: boolean }[];
  /**
   * At load: resolve the files it names relative to the scenario's folder (in place, so the
   * judge process and rejudge read the same file) and say what is wrong with them, as "field: message".
   */
  prepare?(a: A, scenarioDir: string): string[];
  /** the tools it names by the target's own name (a `called` count of one tool): a target lacking one makes the cell unsupported */
  tools(a: A): readonly string[];
  /** the scenario refs it names, as [field, value] */
  refs(a: A): readonly [field: string, value: string | undefined][];
  /** how rejudge treats it once the fixture is gone */
  rejudge(a: A): RejudgeRule;
  /** the positive evidence it must have read before it may say pass or fail (`observed` of its judgment) */
  observes: string;
  /** the broken inputs that must make it `error` */
  mutations: readonly InputMutation[];
}

type Traits = { [K in Kind]: KindTraits<AssertionOf<K>> };

/** Does 0 (what a count over an empty store gives) satisfy `op value`? */
function zeroSatisfies(op: Comparator, value: number): boolean {
  return { eq: 0 === value, ne: 0 !== value, gt: 0 > value, gte: 0 >= value, lt: 0 < value, lte: 0 <= value }[op];
}

/** The evidence tables an SQL text names, as sources (`memories` and `store.` are the store). */
export function sqlSources(sql: string): Source[] {
  const out = new Set<Source>();
  if (/\bmemories\b|\bstore\./i.test(sql)) out.add('store');
  if (/\bcalls\b/i.test(sql)) out.add('calls');
  if (/\bresult_(text|items)\b/i.test(sql)) out.add('recall-text');
  if (/\brecall_probes\b/i.test(sql)) out.add('recall-probe');
  if (/\bagent_usage\b/i.test(sql)) out.add('agent-usage');
  if (/\bprovider_calls\b/i.test(sql)) out.add('provider-calls');
  if (/\bstore_sql\b/i.test(sql)) out.add('store-sql');
  if (/\bstore_integrity\b/i.test(sql)) out.add('store-integrity');
  if (/\bwrites\b/i.test(sql)) out.add('writes');
  return [...out];
}

const none = () => [] as const;
const no = () => false;
const fine = () => undefined;
const simple = {
  members: none,
  composable: true,
  bounded: no,
  probes: none,
  absentTexts: none,
  refs: none,
  tools: none,
} as const;
const realModelOnly = (what: string) => `${what}; set phase to "real-model"`;

export const KINDS: Traits = {
  count: {
    ...simple,
    reads: () => ['store'],
    phaseProblem: fine,
    needsRecallHit: no,
    holdsOnEmptyRecall: no,
    holdsOnEmptyStore: (a) => zeroSatisfies(a.op, a.value),
    refs: (a) => [['ref', a.ref]],
    rejudge: () => 'evidence',
    observes: 'the rows of the memories view it counted (their ids)',
    mutations: ['view-broken'],
  },
  sql: {
    ...simple,
    reads: (a) => sqlSources(a.query),
    phaseProblem: fine,
    bounded: () => true,
    needsRecallHit: no,
    holdsOnEmptyRecall: no,
    holdsOnEmptyStore: (a) => typeof a.value === 'number' && zeroSatisfies(a.op, a.value),
    rejudge: () => 'evidence',
    observes: 'the scalar the query returned from the evidence (a query that errors or returns no row is `error`)',
    mutations: ['view-broken', 'table-missing'],
  },
  absent: {
    ...simple,
    reads: () => ['store', 'fixture'],
    phaseProblem: fine,
    needsRecallHit: no,
    holdsOnEmptyRecall: no,
    holdsOnEmptyStore: () => true,
    absentTexts: (a) => [{ text: a.text, caseSensitive: a.case_sensitive }],
    rejudge: () => 'fixture-files',
    observes: 'the rows, tables, files and bytes it scanned, and where it found the text',
    mutations: ['view-broken'],
  },
  recall: {
    ...simple,
    reads: () => ['recall-probe'],
    phaseProblem: fine,
    probes: (a) => [a.query],
    needsRecallHit: (a) => a.contains !== undefined,
    holdsOnEmptyRecall: (a) => a.contains === undefined,
    holdsOnEmptyStore: (a) => a.contains === undefined,
    rejudge: () => 'evidence',
    observes: "the stored probe's itemised results (an echo of the query is no result)",
    mutations: ['probe-missing', 'probe-refused', 'probe-unreadable'],
  },
  called: {
    ...simple,
    reads: () => ['calls'],
    tools: (a) => (a.tool !== undefined ? [a.tool] : []),
    phaseProblem: fine,
    needsRecallHit: no,
    holdsOnEmptyRecall: no,
    // calls are counted whether or not anything was kept
    holdsOnEmptyStore: () => true,
    rejudge: () => 'evidence',
    observes: 'the rows of the calls log it counted',
    mutations: ['table-missing'],
  },
  transcript: {
    ...simple,
    reads: () => ['transcript'],
    phaseProblem: (a) =>
      a.phase === 'real-model' ? undefined : realModelOnly("a transcript assertion reads an agent's answer"),
    bounded: (a) => a.regex !== undefined,
    needsRecallHit: no,
    holdsOnEmptyRecall: no,
    holdsOnEmptyStore: no,
    rejudge: () => 'evidence',
    observes: "the agent's final answer",
    mutations: ['transcript-missing'],
  },
  file: {
    ...simple,
    reads: () => ['fixture'],
    phaseProblem: fine,
    needsRecallHit: no,
    holdsOnEmptyRecall: no,
    holdsOnEmptyStore: (a) => a.exists === false,
    rejudge: () => 'fixture',
    observes: 'the file in the fixture: that it exists or not, and its text',
    mutations: ['fixture-gone'],
  },
  llm: {
    ...simple,
    reads: (a): Source[] => {
      const what: Record<typeof a.subject, Source[]> = {
        memories: ['store'],
        recall: ['recall-probe'],
        answer: ['transcript'],
        sql: a.sql ? sqlSources(a.sql) : ['store'],
        files: ['fixture'],
      };
      return [...what[a.subject], ...(GROUNDED_CHECKS.has(a.check) ? (['recall-text'] as const) : []), 'model'];
    },
    phaseProblem: (a) =>
      GROUNDED_CHECKS.has(a.check) && a.phase !== 'real-model'
        ? realModelOnly(`check "${a.check}" reads an agent's answer and what it recalled`)
        : undefined,
    probes: (a) => (a.subject === 'recall' && a.query ? [a.query] : []),
    needsRecallHit: no,
    holdsOnEmptyRecall: no,
    holdsOnEmptyStore: no,
    prepare: (a, dir) =>
      a.prompt && !existsSync(resolve(dir, a.prompt)) ? [`prompt: ${resolve(dir, a.prompt)} does not exist`] : [],
    rejudge: (a) => (a.subject === 'files' ? 'fixture' : 'evidence'),
    observes: "the judge model's parsed answer over the judged text",
    mutations: ['model-missing', 'model-garbage'],
  },
  rank: {
    ...simple,
    reads: () => ['recall-probe'],
    phaseProblem: fine,
    probes: (a) => [a.query],
    needsRecallHit: (a) => (a.top_k !== undefined && !a.absent) || a.before !== undefined,
    holdsOnEmptyRecall: (a) => a.absent || (a.memory === undefined && a.max_results !== undefined),
    holdsOnEmptyStore: (a) => a.memory === undefined,
    refs: (a) => [
      ['memory', a.memory],
      ['before', a.before],
    ],
    rejudge: () => 'evidence',
    observes: "the stored probe's itemised results and where the memory landed",
    mutations: ['probe-missing', 'probe-refused', 'probe-unreadable'],
  },
  command: {
    ...simple,
    reads: () => ['program', 'fixture'],
    phaseProblem: fine,
    needsRecallHit: no,
    holdsOnEmptyRecall: no,
    holdsOnEmptyStore: no,
    rejudge: () => 'fixture',
    observes:
      'an exit the scenario declared meaningful (exit_code, or failing_exit_codes), and non-empty output for a stdout or file check',
    mutations: ['fixture-gone', 'program-usage-exit', 'program-silent', 'program-stderr-only'],
  },
  plugin: {
    ...simple,
    // what every cell has; agent_usage, provider_calls and files reach it as null where the cell has none
    reads: () => ['store', 'calls', 'transcript'],
    composable:
      'a plugin judge cannot sit inside a jury or cascade (it runs in the time-limited judge process); give it as an assertion of its own',
    phaseProblem: fine,
    bounded: () => true,
    needsRecallHit: no,
    holdsOnEmptyRecall: no,
    holdsOnEmptyStore: no,
    prepare: (a, dir) => {
      a.module = resolve(dir, a.module);
      const why = pluginModuleProblem(a.module);
      return why ? [`module: ${why}`] : [];
    },
    rejudge: () => 'fixture-files',
    observes: 'the non-empty `actual` the module returned (what it saw)',
    mutations: ['plugin-null', 'plugin-garbage', 'plugin-throws', 'plugin-hangs'],
  },
  budget: {
    ...simple,
    reads: () => ['agent-usage'],
    phaseProblem: fine,
    needsRecallHit: no,
    holdsOnEmptyRecall: no,
    // the agent's spend is counted whether or not anything was kept
    holdsOnEmptyStore: () => true,
    rejudge: () => 'evidence',
    observes: 'the figures the agent reported for every prompt (NULL is unreported)',
    mutations: ['table-missing', 'usage-unreported'],
  },
  integrity: {
    ...simple,
    reads: () => ['store-integrity'],
    phaseProblem: fine,
    needsRecallHit: no,
    holdsOnEmptyRecall: no,
    // an empty store is well-formed
    holdsOnEmptyStore: () => true,
    rejudge: () => 'evidence',
    observes: 'the check of each store file (PRAGMA integrity_check, each line parsed) and what it found',
    mutations: ['table-missing', 'integrity-unchecked'],
  },
  durable: {
    ...simple,
    reads: () => ['store', 'writes'],
    phaseProblem: fine,
    needsRecallHit: no,
    holdsOnEmptyRecall: no,
    holdsOnEmptyStore: no,
    rejudge: () => 'evidence',
    observes: 'each acknowledged write and whether a live memory holds its text (or, for a forget, none does)',
    mutations: ['view-broken', 'table-missing', 'writes-unacknowledged'],
  },
  jury: {
    ...simple,
    reads: (a) => [...new Set(a.judges.flatMap(readsOf))],
    members: (a) => a.judges.map((m, i) => [`judges[${i}]`, m] as const),
    phaseProblem: fine,
    needsRecallHit: (a) => a.judges.some(needsRecallHit),
    holdsOnEmptyRecall: (a) => a.judges.every(holdsOnEmptyRecall),
    holdsOnEmptyStore: (a) => a.judges.every(holdsOnEmptyStore),
    rejudge: () => 'evidence',
    observes: 'the decided votes of its judges, at least its quorum',
    mutations: ['members-undecided'],
  },
  cascade: {
    ...simple,
    reads: (a) => [...new Set(a.tiers.flatMap((t) => t.judges.flatMap(readsOf)))],
    members: (a) => a.tiers.flatMap((t, k) => t.judges.map((m, i) => [`tiers[${k}].judges[${i}]`, m] as const)),
    phaseProblem: fine,
    needsRecallHit: (a) => a.tiers.some((t) => t.judges.some(needsRecallHit)),
    holdsOnEmptyRecall: (a) => a.tiers.every((t) => t.judges.every(holdsOnEmptyRecall)),
    holdsOnEmptyStore: (a) => a.tiers.every((t) => t.judges.every(holdsOnEmptyStore)),
    rejudge: () => 'evidence',
    observes: 'the decided judgments of the tier that decided',
    mutations: ['members-undecided'],
  },
};

/** The record of an assertion's kind, typed for that assertion. */
export function traitsOf<K extends Kind>(a: AssertionOf<K>): KindTraits<AssertionOf<K>> {
  return KINDS[a.kind as K] as KindTraits<AssertionOf<K>>;
}

function readsOf(a: Assertion): readonly Source[] {
  return traitsOf(a).reads(a);
}
function needsRecallHit(a: Assertion): boolean {
  return traitsOf(a).needsRecallHit(a);
}
function holdsOnEmptyRecall(a: Assertion): boolean {
  return traitsOf(a).holdsOnEmptyRecall(a);
}
/** Does this assertion hold whatever the target does when nothing is stored? */
export function holdsOnEmptyStore(a: Assertion): boolean {
  return traitsOf(a).holdsOnEmptyStore(a);
}

/** Every assertion, with jury and cascade members, and a path for messages. */
export function walkAssertions(list: readonly Assertion[], base = 'assertions'): { a: Assertion; path: string }[] {
  return list.flatMap((a, i) => walkMember(a, `${base}[${i}]`));
}

function walkMember(a: Assertion, path: string): { a: Assertion; path: string }[] {
  return [
    { a, path },
    ...traitsOf(a)
      .members(a)
      .flatMap(([rel, m]) => walkMember(m, `${path}.${rel}`)),
  ];
}

/** Every assertion and the judges inside it. */
export const withMembers = (list: readonly Assertion[]): Assertion[] => walkAssertions(list).map((x) => x.a);

/** Does this judge (or one inside it) read a source? */
export function reads(a: Assertion, source: Source): boolean {
  return readsOf(a).includes(source);
}

/** Does it (or one inside it) read what a recall returned: a stored probe, or recall texts in the calls log? */
export function readsRecall(a: Assertion): boolean {
  return reads(a, 'recall-probe') || reads(a, 'recall-text');
}

/** Does it (or one inside it) call a judge model? */
export function needsModel(a: Assertion): boolean {
  return reads(a, 'model');
}

/** Does it (or one inside it) need a recall to find something? */
export { needsRecallHit, holdsOnEmptyRecall };

/** Does it run in the time-limited judge process? (Members of a composition are asked one by one.) */
export function isBounded(a: Assertion): boolean {
  return traitsOf(a).bounded(a);
}

/**
 * The distinct queries the assertions' judges read (in a jury or cascade too), in the order
 * first named: each is probed once per cell, so two assertions over one query judge one result.
 */
export function probeQueries(assertions: readonly Assertion[]): string[] {
  return [...new Set(withMembers(assertions).flatMap((a) => traitsOf(a).probes(a)))];
}

/** The tools the assertions (and members) name by the target's own name. */
export function namedTools(assertions: readonly Assertion[]): string[] {
  return [...new Set(withMembers(assertions).flatMap((a) => traitsOf(a).tools(a)))];
}

/** Texts some assertion (or member) expects nowhere, deduplicated. */
export function absentTexts(assertions: readonly Assertion[]): { text: string; caseSensitive: boolean }[] {
  const seen = new Map<string, { text: string; caseSensitive: boolean }>();
  for (const a of withMembers(assertions))
    for (const t of traitsOf(a).absentTexts(a)) seen.set(`${t.caseSensitive}:${t.text}`, t);
  return [...seen.values()];
}

/** Why an assertion (or one inside it) cannot be judged again once the fixture is gone, or null. */
export function whyNotRejudgeable(a: Assertion, fixtureFiles = 0): string | null {
  for (const x of withMembers([a])) {
    const rule = traitsOf(x).rejudge(x);
    if (rule === 'fixture') return `${x.kind} "${x.name}" reads the fixture, which is removed after a run`;
    if (rule === 'fixture-files' && fixtureFiles > 0)
      return `${x.kind} "${x.name}" also read ${fixtureFiles} fixture file(s) beside the store, which are removed after a run`;
  }
  return null;
}
