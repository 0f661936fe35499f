import { z } from 'zod';
import { EXIT, isChecked, PHASES, type CellResult, type Report } from '../core/results.js';
import { nothingChecked } from './report.js';
import { InputError } from '../util/errors.js';
import { parseWith, readJson5File } from '../util/json5-file.js';

/** One known failure a team accepts for now: the cell may fail without failing the run. */
export const expectedFailureSchema = z.strictObject({
  scenario: z.string().min(1),
  target: z.string().min(1),
  phase: z.enum(PHASES),
  reason: z.string().min(1, 'say why this failure is accepted'),
});
export type ExpectedFailure = z.infer<typeof expectedFailureSchema>;
export const expectedFailuresSchema = z.array(expectedFailureSchema);

/** Read an expected-failures file (JSON or JSON5: an array of {scenario, target, phase, reason}). */
export function readExpectedFailures(file: string): ExpectedFailure[] {
  const list = parseWith(file, readJson5File(file), expectedFailuresSchema);
  const seen = new Set<string>();
  for (const [i, e] of list.entries()) {
    const key = `${e.scenario}/${e.target}/${e.phase}`;
    if (seen.has(key)) throw new InputError(`${file}: [${i}]: ${key} is listed twice`);
    seen.add(key);
  }
  return list;
}

export type FailOn = 'regressions' | 'failures';

export interface GateInput {
  /** a previous run: cells failing there too are not regressions */
  baseline?: Report;
  expected?: ExpectedFailure[];
  /** default: regressions when a baseline or expected failures are given, else failures */
  failOn?: FailOn;
}

export interface GateCell {
  cell_id: string;
  verdict: string;
  reason: string;
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
  /** expected to fail, but not checked (unsupported, skipped): neither a pass nor a known failure */
  not_checked: GateCell[];
  /** set when no cell of the run has a checked verdict: exit 1, whatever the baseline says */
  nothing_checked?: string;
}

const toCell = (r: CellResult): GateCell => ({ cell_id: r.cell_id, verdict: r.verdict, reason: r.reason });

/**
 * Decide the run's exit code from its cells and what the team already knows fails. An
 * interrupted or blocked run keeps its own exit code: a gate never turns those into a pass.
 * Neither does a cell that checked nothing: one the baseline checked and this run did not
 * (now unsupported or skipped) is a regression, and a run that checked no cell at all exits 1.
 */
export function gate(report: Report, g: GateInput): GateResult {
  const failOn: FailOn = g.failOn ?? (g.baseline || g.expected ? 'regressions' : 'failures');
  const baseFailing = new Map((g.baseline?.results ?? []).filter((r) => r.fails_run).map((r) => [r.cell_id, r]));
  const expected = new Map((g.expected ?? []).map((e) => [`${e.scenario}/${e.target}/${e.phase}`, e]));
  const regressions: GateCell[] = [];
  const known: GateResult['known'] = [];
  for (const r of report.results.filter((x) => x.fails_run)) {
    const key = `${r.scenario}/${r.target}/${r.phase}`;
    const e = expected.get(key);
    const b = baseFailing.get(r.cell_id);
    if (failOn === 'regressions' && e) known.push({ ...toCell(r), because: `expected failure: ${e.reason}` });
    else if (failOn === 'regressions' && b) known.push({ ...toCell(r), because: `fails in baseline ${g.baseline!.run_id} too (${b.verdict})` });
    else regressions.push(toCell(r));
  }
  const baseChecked = new Map((g.baseline?.results ?? []).filter((r) => isChecked(r.verdict)).map((r) => [r.cell_id, r]));
  for (const r of report.results.filter((x) => !x.fails_run && !isChecked(x.verdict))) {
    const b = baseChecked.get(r.cell_id);
    if (b) regressions.push({ ...toCell(r), reason: `no longer checked (${b.verdict} in baseline ${g.baseline!.run_id}): ${r.reason}` });
  }
  const listed = (r: CellResult) => expected.has(`${r.scenario}/${r.target}/${r.phase}`);
  const unexpected_passes = report.results.filter((r) => !r.fails_run && isChecked(r.verdict) && listed(r)).map(toCell);
  const not_checked = report.results.filter((r) => !r.fails_run && !isChecked(r.verdict) && listed(r)).map(toCell);
  const nothing = nothingChecked(report.results);
  let exit_code: number = regressions.length || nothing ? EXIT.failed : EXIT.ok;
  if (report.status === 'interrupted') exit_code = EXIT.interrupted;
  else if (report.status === 'blocked') exit_code = EXIT.blocked;
  else if (report.status === 'failed') exit_code = EXIT.failed;
  return { exit_code, fail_on: failOn, regressions, known, unexpected_passes, not_checked, ...(nothing ? { nothing_checked: nothing } : {}) };
}

export function formatGate(g: GateResult): string[] {
  const lines: string[] = [];
  for (const k of g.known) lines.push(`known failure: ${k.cell_id} ${k.verdict} (${k.because})`);
  for (const r of g.regressions) lines.push(`${g.fail_on === 'regressions' ? 'regression' : 'failure'}: ${r.cell_id} ${r.verdict}: ${r.reason}`);
  for (const u of g.unexpected_passes) lines.push(`expected to fail but passed: ${u.cell_id} (${u.verdict}); remove it from the expected failures`);
  for (const n of g.not_checked ?? []) lines.push(`expected failure not checked: ${n.cell_id} (${n.verdict}: ${n.reason})`);
  lines.push(`gate (fail on ${g.fail_on}): ${g.regressions.length} counted, ${g.known.length} known; exit ${g.exit_code}`);
  return lines;
}
