import { z } from 'zod';
import {
  cellAgent,
  declaredTarget,
  EXIT,
  isChecked,
  isPassed,
  PHASES,
  type CellResult,
  type Report,
} from '../core/results.js';
import { nothingChecked } from './report.js';
import { baseKey, byBaseKey, compareCells, failingAssertions, how } from './cell-compare.js';
import { InputError, nearest } from '../util/errors.js';
import { parseWith, readJson5File } from '../util/json5-file.js';
import { MEMEVAL_VERSION } from '../util/paths.js';
import { readRun } from './reader.js';

/** The verdicts that can fail a run (`detected` does where the target claims the defence). */
export const FAILING_VERDICTS = ['fail', 'undetected', 'invalid', 'error', 'detected'] as const;

/**
 * One known failure a team accepts for now: where (the cell; for real-model cells, the agent)
 * and how (the verdict and the assertions that fail). The cell may fail that way without
 * failing the run; any other failure of it still counts.
 */
export const expectedFailureSchema = z
  .strictObject({
    scenario: z.string().min(1),
    target: z.string().min(1),
    phase: z.enum(PHASES),
    /** real-model cells: the agent whose cells may fail (every repeat must fail this way) */
    agent: z.string().min(1).optional(),
    verdict: z.enum(FAILING_VERDICTS),
    /** exactly the assertions that fail (outcome fail or error; warn-level ones never count) */
    assertions: z.array(z.string().min(1)),
    /** text the cell's reason contains: required where no assertion fails (refused calls, a crash) */
    reason_contains: z.string().min(1).optional(),
    reason: z.string().min(1, 'say why this failure is accepted'),
  })
  .superRefine((e, ctx) => {
    if (e.phase === 'real-model' && !e.agent)
      ctx.addIssue({
        code: 'custom',
        path: ['agent'],
        message: 'a real-model entry names the agent whose cells may fail (e.g. "claude-code")',
      });
    if (e.phase !== 'real-model' && e.agent)
      ctx.addIssue({ code: 'custom', path: ['agent'], message: 'agent: only for phase real-model' });
    if (!e.assertions.length && !e.reason_contains)
      ctx.addIssue({
        code: 'custom',
        path: ['reason_contains'],
        message:
          'no failing assertion is named: give reason_contains, text of the cell\'s reason (e.g. "refused by the target")',
      });
  });
export type ExpectedFailure = z.infer<typeof expectedFailureSchema>;
export const expectedFailuresSchema = z.array(expectedFailureSchema);

const where = (e: { scenario: string; target: string; phase: string; agent?: string }) =>
  `${e.scenario}/${e.target}/${e.phase}${e.agent ? ` (${e.agent})` : ''}`;

/** Read an expected-failures file (JSON or JSON5: an array of {scenario, target, phase, [agent,] verdict, assertions, [reason_contains,] reason}). */
export function readExpectedFailures(file: string): ExpectedFailure[] {
  const raw = readJson5File(file);
  // the earlier format named only the cell, so it accepted any failure there: refuse it with the fix
  if (Array.isArray(raw)) {
    const old = raw.flatMap((e, i) =>
      e && typeof e === 'object' && !Array.isArray(e) && !('verdict' in e)
        ? [
            `${file}: [${i}]: ${where(e as ExpectedFailure)} names no verdict: an expected failure says how the cell fails, not only where, so that another failure of it still counts; ` +
              `add verdict and assertions (what it fails with today, e.g. verdict: "fail", assertions: ["<assertion name>"]; the gate prints the entry for each failing cell)`,
          ]
        : [],
    );
    if (old.length) throw new InputError(old.join('\n'), old);
  }
  const list = parseWith(file, raw, expectedFailuresSchema);
  const seen = new Set<string>();
  for (const [i, e] of list.entries()) {
    const key = where(e);
    if (seen.has(key)) throw new InputError(`${file}: [${i}]: ${key} is listed twice`);
    seen.add(key);
  }
  return list;
}

/**
 * Read a baseline for the gate: only a whole, completed run of this memeval version can say a
 * failure is known. Anything else is refused (exit 3), never read as "known".
 */
export function readBaseline(runDirOrFile: string): Report {
  const { report, file } = readRun(runDirOrFile);
  const problems = baselineProblems(report).map((p) => `--baseline ${file}: ${p}`);
  if (problems.length) throw new InputError(problems.join('\n'), problems);
  return report;
}

export function baselineProblems(r: Report): string[] {
  const fix = `rerun the baseline with memeval ${MEMEVAL_VERSION} (or drop --baseline)`;
  if (r.memeval_version !== MEMEVAL_VERSION)
    return [
      `written by memeval ${r.memeval_version}, this is ${MEMEVAL_VERSION}: its verdicts may not mean the same; ${fix}`,
    ];
  if (!r.plan)
    return [`no plan (planned cells, shard, file hashes) in this report, so it cannot show it is a whole run; ${fix}`];
  if (r.status !== 'completed') return [`status ${r.status}: not a complete run; ${fix}`];
  if (r.plan.shard)
    return [
      `shard ${r.plan.shard.index}/${r.plan.shard.count} of a run: merge the shards (memeval merge) and give the merged run`,
    ];
  const have = new Set(r.results.map((c) => c.cell_id));
  const missing = r.plan.cells.filter((id) => !have.has(id));
  if (missing.length) return [`no result for planned cell(s) ${missing.join(', ')}: not a complete run; ${fix}`];
  const skipped = r.results.filter((c) => c.verdict === 'skipped').map((c) => c.cell_id);
  if (skipped.length) return [`cell(s) ${skipped.join(', ')} skipped: not a complete run; ${fix}`];
  return [];
}

/** `flaky` is `failures` where cells that passed only on a retry fail the run too (they carry fails_run) */
export type FailOn = 'regressions' | 'failures' | 'flaky';

export interface GateInput {
  /** a previous run: cells failing there the same way are not regressions */
  baseline?: Report;
  expected?: ExpectedFailure[];
  /** default: regressions when a baseline or expected failures are given, else failures */
  failOn?: FailOn;
}

export interface GateCell {
  cell_id: string;
  verdict: string;
  reason: string;
  /** the assertions that fail in it (outcome fail or error, not warn-level) */
  assertions: string[];
  /** a regression of a listed or baseline-failing cell: how the failure differs */
  why?: string;
}

export interface GateResult {
  exit_code: number;
  fail_on: FailOn;
  /** failing cells that count against the run, and cells the baseline checked that this run did not */
  regressions: GateCell[];
  /** failing cells the baseline or expected-failures accepts */
  known: (GateCell & { because: string })[];
  /** expected to fail, but passed: time to drop them from the list */
  unexpected_passes: GateCell[];
  /** failed the run in the baseline, pass now (absent without a baseline, and in reports from before it) */
  fixed?: GateCell[];
  /** expected to fail, but not checked (unsupported, skipped): neither a pass nor a known failure */
  not_checked: GateCell[];
  /** expected-failures entries that name no cell of the run (a typo), with the nearest cell's name */
  unmatched_expected?: { entry: string; nearest?: string }[];
  /** set when no cell of the run has a checked verdict: exit 1, whatever the baseline says */
  nothing_checked?: string;
}

const sameList = (a: string[], b: string[]) =>
  a.length === b.length && [...a].sort().every((x, i) => x === [...b].sort()[i]);
const expectedHow = (e: ExpectedFailure) =>
  how(e.verdict, e.assertions) + (e.reason_contains ? ` and a reason containing "${e.reason_contains}"` : '');
const toCell = (r: CellResult): GateCell => ({
  cell_id: r.cell_id,
  verdict: r.verdict,
  reason: r.reason,
  assertions: failingAssertions(r),
});

const agentOf = cellAgent;

/** The entries for a cell: same scenario, target and phase, and for real-model cells the same agent. */
const entriesFor = (r: CellResult, list: ExpectedFailure[]) =>
  list.filter(
    (e) =>
      e.scenario === r.scenario &&
      e.target === r.target &&
      e.phase === r.phase &&
      (r.phase !== 'real-model' || e.agent === agentOf(r)),
  );

const matches = (e: ExpectedFailure, r: CellResult) =>
  e.verdict === r.verdict &&
  sameList(e.assertions, failingAssertions(r)) &&
  (!e.reason_contains || r.reason.includes(e.reason_contains));

/**
 * Why a failure the baseline recorded in another column of the same declared target (another
 * `name@version`) is not this cell's known failure: cells are matched by column, so it never is.
 */
function elsewhere(r: CellResult, baseline: Report): string | undefined {
  const key = (c: CellResult) => baseKey(c).replace(`/${c.target}/`, `/${declaredTarget(c.target)}/`);
  const other = baseline.results.filter(
    (b) => b.fails_run && b.target !== r.target && key(b) === key(r) && b.target_version !== r.target_version,
  );
  if (other.length)
    return `baseline failed it at ${other.map((b) => `${b.target} (${b.target_version ?? 'version not recorded'})`).join(', ')}, not at ${r.target} ${r.target_version ?? ''}: a failure recorded for another version is not known`.trimEnd();
  return undefined;
}

/**
 * Decide the run's exit code from its cells and what the team already knows fails. An
 * interrupted or blocked run keeps its own exit code: a gate never turns those into a pass.
 * Neither does a cell that checked nothing: one the baseline checked and this run did not
 * (now unsupported or skipped) is a regression, and a run that checked no cell at all exits 1.
 * Each cell is compared with the baseline's (its repeats, or its base cell) by
 * report/cell-compare.ts, as `diff` compares them: known only when it fails as the baseline did.
 */
export function gate(report: Report, g: GateInput): GateResult {
  const failOn: FailOn = g.failOn ?? (g.baseline || g.expected ? 'regressions' : 'failures');
  const base = byBaseKey(g.baseline?.results ?? []);
  const against = (r: CellResult) => {
    const b = base.get(baseKey(r));
    return b && compareCells(b, [r], { label: 'baseline', runId: g.baseline!.run_id });
  };
  const expected = g.expected ?? [];
  const regressions: GateCell[] = [];
  const known: GateResult['known'] = [];
  for (const r of report.results.filter((x) => x.fails_run)) {
    const entries = entriesFor(r, expected);
    const e = entries.find((x) => matches(x, r));
    const c = against(r);
    const now = how(r.verdict, failingAssertions(r));
    if (failOn === 'regressions' && e) known.push({ ...toCell(r), because: `expected failure: ${e.reason}` });
    else if (failOn === 'regressions' && c?.known)
      known.push({ ...toCell(r), because: `fails in baseline ${g.baseline!.run_id} too (${now})` });
    else {
      const other = g.baseline && !c ? elsewhere(r, g.baseline) : undefined;
      const why = [
        ...(entries.length ? [`expected ${entries.map(expectedHow).join(' or ')}, got ${now}`] : []),
        ...(c?.kind === 'failing-differently' ? [c.reason] : []),
        ...(other ? [other] : []),
      ];
      regressions.push({ ...toCell(r), ...(why.length ? { why: why.join('; ') } : {}) });
    }
  }
  for (const r of report.results.filter((x) => !x.fails_run && !isChecked(x.verdict))) {
    const c = against(r);
    if (c?.kind === 'regressed') regressions.push({ ...toCell(r), reason: c.reason });
  }
  const listed = (r: CellResult) => entriesFor(r, expected).length > 0;
  const unexpected_passes = report.results.filter((r) => isPassed(r) && listed(r)).map(toCell);
  const fixed = g.baseline ? report.results.filter((r) => isPassed(r) && against(r)?.kind === 'fixed').map(toCell) : [];
  const not_checked = report.results.filter((r) => !r.fails_run && !isChecked(r.verdict) && listed(r)).map(toCell);
  const nothing = nothingChecked(report.results);
  const unmatched = unmatchedEntries(expected, report.plan?.cells ?? report.results.map((r) => r.cell_id));
  let exit_code: number = regressions.length || nothing ? EXIT.failed : EXIT.ok;
  if (report.status === 'interrupted') exit_code = EXIT.interrupted;
  else if (report.status === 'blocked') exit_code = EXIT.blocked;
  else if (report.status === 'failed') exit_code = EXIT.failed;
  return {
    exit_code,
    fail_on: failOn,
    regressions,
    known,
    unexpected_passes,
    not_checked,
    ...(fixed.length ? { fixed } : {}),
    ...(unmatched.length ? { unmatched_expected: unmatched } : {}),
    ...(nothing ? { nothing_checked: nothing } : {}),
  };
}

/** `scenario/target/phase` of a cell id, with the agent of a real-model cell (`…/real-model/<agent>-<n>`). */
function cellWhere(id: string): { key: string; agent?: string } {
  const [scenario, target, phase, rest] = id.split('/');
  return { key: `${scenario}/${target}/${phase}`, ...(rest ? { agent: /^(.+)-\d+$/.exec(rest)?.[1] ?? rest } : {}) };
}

/**
 * Expected-failures entries that name no cell the run planned (every shard's): a typo in a target
 * or scenario name would otherwise sit in the list forever, accepting nothing and warning of nothing.
 */
function unmatchedEntries(expected: ExpectedFailure[], cellIds: string[]): { entry: string; nearest?: string }[] {
  const cells = cellIds.map(cellWhere);
  return expected
    .filter((e) => {
      const key = `${e.scenario}/${e.target}/${e.phase}`;
      return !cells.some((c) => c.key === key && (e.phase !== 'real-model' || c.agent === e.agent));
    })
    .map((e) => {
      const guess = nearest(
        where(e),
        cells.map((c) => `${c.key}${c.agent ? ` (${c.agent})` : ''}`),
      );
      return { entry: where(e), ...(guess ? { nearest: guess } : {}) };
    });
}

/** The expected-failures entry that would accept this cell as it fails now (reason left for the team). */
export function entryFor(r: CellResult): Record<string, unknown> {
  const assertions = failingAssertions(r);
  return {
    scenario: r.scenario,
    target: r.target,
    phase: r.phase,
    ...(r.phase === 'real-model' ? { agent: agentOf(r) } : {}),
    verdict: r.verdict,
    assertions,
    ...(assertions.length ? {} : { reason_contains: r.reason.slice(0, 60) }),
    reason: 'why this failure is accepted for now',
  };
}

/** The gate's lines; with the run's results, each regression also shows the entry that would accept it. */
export function formatGate(g: GateResult, results: CellResult[] = []): string[] {
  const lines: string[] = [];
  const byId = new Map(results.map((r) => [r.cell_id, r]));
  for (const k of g.known) lines.push(`known failure: ${k.cell_id} ${k.verdict} (${k.because})`);
  for (const r of g.regressions) {
    lines.push(
      `${g.fail_on === 'regressions' ? 'regression' : 'failure'}: ${r.cell_id} ${r.verdict}: ${r.reason}${r.why ? ` (${r.why})` : ''}`,
    );
    const cell = byId.get(r.cell_id);
    if (g.fail_on === 'regressions' && cell)
      lines.push(`  to accept it as it fails now, list in --expected-failures: ${JSON.stringify(entryFor(cell))}`);
  }
  for (const u of g.unexpected_passes)
    lines.push(`expected to fail but passed: ${u.cell_id} (${u.verdict}); remove it from the expected failures`);
  for (const n of g.not_checked ?? [])
    lines.push(`expected failure not checked: ${n.cell_id} (${n.verdict}: ${n.reason})`);
  for (const u of g.unmatched_expected ?? [])
    lines.push(
      `warning: expected failure ${u.entry} matches no cell of this run${u.nearest ? `; nearest cell: ${u.nearest}` : ''}`,
    );
  lines.push(
    `gate (fail on ${g.fail_on}): ${g.regressions.length} counted, ${g.known.length} known; exit ${g.exit_code}`,
  );
  return lines;
}
