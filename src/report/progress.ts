import { Chalk, type ChalkInstance } from 'chalk';
import { isChecked, type CellResult, type Report } from '../core/results.js';
import { cellStages, stagesLine } from '../core/stages.js';
import { aboutText, failingAssertions, failureReason, isCaught, oneLine } from './reporters/explain.js';
import { formatUsageTotal } from './console.js';
import { closingLine, nothingChecked } from './report.js';
import type { GateResult } from './gate.js';

/**
 * Colour level from the conventions users set: FORCE_COLOR (0/false off, 1-3 on, even off a
 * terminal) wins over NO_COLOR (any non-empty value: off); otherwise colour on a terminal only.
 */
export function colorLevel(env: NodeJS.ProcessEnv, isTTY: boolean): 0 | 1 | 2 | 3 {
  const force = env.FORCE_COLOR;
  if (force !== undefined) {
    if (force === '0' || force === 'false') return 0;
    if (force === '' || force === 'true') return 1;
    const n = Number.parseInt(force, 10);
    return Number.isNaN(n) ? 1 : (Math.min(Math.max(n, 1), 3) as 1 | 2 | 3);
  }
  if (env.NO_COLOR) return 0;
  return isTTY ? (env.COLORTERM === 'truecolor' ? 3 : 2) : 0;
}

/** The subset of a cell result that progress needs: the old PhaseResult and CellResult both fit. */
export type ProgressCell = Pick<
  CellResult,
  'scenario' | 'target' | 'phase' | 'verdict' | 'reason' | 'fails_run' | 'duration_ms'
> &
  Partial<
    Pick<CellResult, 'claimed' | 'defence' | 'stderr_tail' | 'fixture' | 'cell_id' | 'repeat' | 'about' | 'kept_store'>
  > & {
    assertions: { name: string; outcome: string; actual: unknown; expected: unknown }[];
    agent?: { agent: string; repeat: number };
  };

// the explain helpers read only fields ProgressCell has
const asCell = (r: ProgressCell) => r as unknown as CellResult;

function mark(r: ProgressCell, c: ChalkInstance): string {
  if (r.fails_run) return c.red('✗');
  if (isCaught(asCell(r))) return c.cyan('◆');
  if (r.verdict === 'flaky') return c.yellow('~');
  if (r.verdict === 'unsupported' || r.verdict === 'skipped') return c.yellow('–');
  return c.green('✓');
}

function label(r: ProgressCell): string {
  if (isCaught(asCell(r))) return 'caught';
  if (r.verdict === 'detected' && r.claimed) return 'detected';
  return r.verdict;
}

/** A cell's headline: mark, verdict (caught violations as "caught"), where, how long. */
export function cellLine(r: ProgressCell, c: ChalkInstance, withReason: boolean): string {
  const agent = r.agent ? ` ${r.agent.agent} #${r.agent.repeat}` : r.repeat ? ` #${r.repeat}` : '';
  const why = r.fails_run
    ? failureReason(asCell(r))
    : isCaught(asCell(r))
      ? r.reason
      : r.verdict === 'unsupported' || r.verdict === 'skipped' || r.verdict === 'flaky'
        ? r.reason
        : '';
  const verdictCol = r.fails_run
    ? c.red
    : isCaught(asCell(r))
      ? c.cyan
      : r.verdict === 'unsupported' || r.verdict === 'skipped' || r.verdict === 'flaky'
        ? c.yellow
        : c.green;
  // the scenario's stages, as a reader reads them: "written verbatim, unmarked, …"
  const stages = stagesLine(cellStages(asCell(r).assertions));
  return (
    `${mark(r, c)} ${verdictCol(label(r).padEnd(11))} ${r.scenario} ${c.dim(`[${r.target}]`)} ${r.phase}${agent} ${c.dim(`${r.duration_ms} ms`)}` +
    (withReason && stages ? ` ${c.dim('—')} ${stages}` : '') +
    (withReason && why ? c.dim(` — ${oneLine(why, 200)}`) : '') +
    (withReason && r.fixture && r.fixture !== 'removed' && r.fixture !== 'not created'
      ? c.dim(` — fixture kept: ${r.fixture}`)
      : '')
  );
}

/** What a person needs under a cell that fails or needs attention: each failing assertion, clipped. */
export function cellDetail(r: ProgressCell, c: ChalkInstance): string[] {
  if (!r.fails_run && r.verdict !== 'unsupported') return [];
  const lines = [`    ${c.dim(oneLine(r.reason, 300))}`];
  for (const a of failingAssertions(asCell(r)))
    lines.push(c.red(`    ✗ ${a.name}: actual ${oneLine(a.actual)}, expected ${oneLine(a.expected)}`));
  if (r.stderr_tail && r.verdict === 'error')
    lines.push(
      ...r.stderr_tail
        .trim()
        .split('\n')
        .slice(-5)
        .map((l) => c.dim(`    | ${oneLine(l, 200)}`)),
    );
  if (r.fixture && r.fixture !== 'removed' && r.fixture !== 'not created')
    lines.push(c.dim(`    fixture kept: ${r.fixture}`));
  return lines;
}

export interface ProgressOptions {
  total: number;
  /** a terminal gets a live line redrawn in place; anything else one plain line per cell */
  tty: boolean;
  color: 0 | 1 | 2 | 3;
  write: (s: string) => void;
  now?: () => number;
}

const fmtDuration = (ms: number) => {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
};

/**
 * Live progress for a run. On a terminal: one status line `[n/N] passed, failed, ETA` redrawn
 * in place, with the cells that fail or need attention printed above it. Off a terminal (CI
 * logs): one line per cell, no control codes.
 */
export class Progress {
  readonly c: ChalkInstance;
  private done = 0;
  private passed = 0;
  private failed = 0;
  /** counted apart: an unsupported cell checked nothing, so it is never a pass */
  private unsupported = 0;
  /** counted apart: passed only on a retry, so never a pass */
  private flaky = 0;
  private readonly start: number;
  private readonly now: () => number;

  constructor(private readonly o: ProgressOptions) {
    this.c = new Chalk({ level: o.color });
    this.now = o.now ?? Date.now;
    this.start = this.now();
  }

  statusLine(): string {
    const elapsed = this.now() - this.start;
    const eta = this.done ? fmtDuration((elapsed / this.done) * (this.o.total - this.done)) : '?';
    const unsupported = this.unsupported ? `, ${this.c.yellow(`${this.unsupported} unsupported`)}` : '';
    const flaky = this.flaky ? `, ${this.c.yellow(`${this.flaky} flaky`)}` : '';
    return `[${this.done}/${this.o.total}] ${this.c.green(`${this.passed} passed`)}, ${this.failed ? this.c.red(`${this.failed} failed`) : '0 failed'}${flaky}${unsupported}, ETA ${eta}`;
  }

  cell(r: ProgressCell): void {
    this.done++;
    if (r.fails_run) this.failed++;
    else if (r.verdict === 'flaky') this.flaky++;
    else if (r.verdict === 'unsupported') this.unsupported++;
    else if (isChecked(r.verdict)) this.passed++;
    if (!this.o.tty) {
      this.o.write(`[${this.done}/${this.o.total}] ${cellLine(r, this.c, true)}\n`);
      return;
    }
    const attention =
      r.fails_run ||
      r.verdict === 'flaky' ||
      r.verdict === 'unsupported' ||
      r.verdict === 'error' ||
      r.verdict === 'invalid';
    // \r + erase line: replace the status line, print the cell above it, redraw the status
    this.o.write(
      '\r\x1b[2K' +
        (attention ? [cellLine(r, this.c, false), ...cellDetail(r, this.c)].join('\n') + '\n' : '') +
        this.statusLine(),
    );
  }

  /** Clear the live line before the closing output. */
  end(): void {
    if (this.o.tty) this.o.write('\r\x1b[2K');
  }
}

type RecapReport = Pick<Report, 'summary' | 'status' | 'usage_total'> & {
  results: ProgressCell[];
  gate?: Pick<GateResult, 'regressions' | 'known'>;
};

/**
 * The cells that fail the run, each with its reason and why its scenario exists, then the flaky
 * ones: what `run`, `rejudge` and `merge` print before their closing counts.
 */
export function formatFailing(
  report: Omit<RecapReport, 'usage_total' | 'summary' | 'status'>,
  c: ChalkInstance,
): string[] {
  // with a baseline or expected failures, the gate decides which cells fail the run: a failure
  // it accepts is not announced as failing the run before an "exit 0"
  const counted = report.gate && new Set(report.gate.regressions.map((r) => r.cell_id));
  const failing = report.results.filter((r) =>
    counted ? r.cell_id !== undefined && counted.has(r.cell_id) : r.fails_run,
  );
  const lines: string[] = [];
  if (report.gate?.known.length)
    lines.push(c.dim(`${report.gate.known.length} known failure(s) do not fail the run (listed by the gate below)`));
  if (failing.length) {
    lines.push(c.bold(`${failing.length} cell(s) fail the run:`));
    for (const r of failing) {
      lines.push(
        `  ${c.red('✗')} ${r.scenario} ${c.dim(`[${r.target}]`)} ${r.phase}${r.agent ? ` ${r.agent.agent} #${r.agent.repeat}` : ''}: ${r.verdict} — ${oneLine(failureReason(asCell(r)), 300)}`,
      );
      // why the cell exists, so a failure reads as what broke, not only which check
      const why = aboutText(r.about);
      if (why) lines.push(c.dim(`      why: ${why}`));
    }
  }
  // flaky cells that do not fail the run are still never passes: listed apart
  const flaky = report.results.filter((r) => r.verdict === 'flaky' && !failing.includes(r));
  if (flaky.length) {
    lines.push(
      c.bold(`${flaky.length} flaky cell(s) passed only on a retry (\`--fail-on flaky\` fails the run on them):`),
    );
    for (const r of flaky)
      lines.push(`  ${c.yellow('~')} ${r.scenario} ${c.dim(`[${r.target}]`)} ${r.phase} — ${oneLine(r.reason, 300)}`);
  }
  return lines;
}

/** The closing recap: every cell that fails the run with its reason, wall time, report path. */
export function formatRecap(report: RecapReport, reportPath: string, wallMs: number, c: ChalkInstance): string {
  // an interrupted run says so already; a completed one that checked nothing must say that
  const nothing = report.status === 'completed' ? nothingChecked(report.results) : undefined;
  const lines = formatFailing(report, c);
  const caught = report.results.filter((r) => isCaught(asCell(r))).length;
  const by = Object.entries(report.summary.by_verdict).map(([v, n]) => `${n} ${v}`);
  lines.push(
    c.dim(`verdicts: ${by.join(', ')}${caught ? ` (${caught} violation(s) caught as designed)` : ''}`),
    ...(formatUsageTotal(report.usage_total) ? [c.dim(formatUsageTotal(report.usage_total)!)] : []),
    c.dim(`wall time ${fmtDuration(wallMs)}${report.status !== 'completed' ? `, run ${report.status}` : ''}`),
    ...keptLines(report.results, c),
    c.dim(`report: ${reportPath}`),
    ...(nothing ? [c.red(nothing)] : []),
    closingLine(report.summary),
  );
  return lines.join('\n');
}

/** --keep: where each kept cell's store is, so it can be opened after the run. */
function keptLines(results: ProgressCell[], c: ChalkInstance): string[] {
  const kept = results.filter((r) => r.kept_store);
  if (!kept.length) return [];
  return [
    c.dim(`kept ${kept.length} fixture(s); each cell's store:`),
    ...kept.map((r) => c.dim(`  ${r.cell_id ?? `${r.scenario}/${r.target}/${r.phase}`}: ${r.kept_store}`)),
  ];
}
