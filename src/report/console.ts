import chalk from 'chalk';
import type { CellResult, Report, Verdict } from '../core/results.js';
import type { RepeatStats } from './repeats.js';
import { closingLine, nothingChecked } from './report.js';
import { clip } from '../util/text.js';

const COLOR: Record<Verdict, (s: string) => string> = {
  pass: chalk.green,
  defended: chalk.green,
  detected: chalk.cyan,
  unsupported: chalk.yellow,
  skipped: chalk.yellow,
  fail: chalk.red,
  undetected: chalk.red,
  invalid: chalk.red,
  error: chalk.red,
};

function fmt(v: unknown): string {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return clip(s, 160);
}

/** One line per phase, then the assertions that explain it. */
export function formatPhase(r: CellResult): string {
  const mark = r.fails_run ? chalk.red('✗') : chalk.green('✓');
  const claim =
    r.verdict === 'detected' ? chalk.dim(r.claimed ? ` (target claims ${r.defence})` : ' (instrument caught it)') : '';
  const lines = [
    `${mark} ${COLOR[r.verdict](r.verdict.padEnd(11))} ${r.scenario} ${chalk.dim(`[${r.target}]`)} ${r.phase}${claim} ${chalk.dim(`${r.duration_ms} ms`)}`,
  ];
  if (r.agent) {
    const u = r.agent.usage;
    lines[0] += chalk.dim(
      ` ${r.agent.agent}${r.agent.scripted ? ` scripted/${r.agent.policy}` : ` ${r.agent.model}`} #${r.agent.repeat}, ${r.agent.turns.length} turn(s), tokens in ${u.input} out ${u.output}${u.cost_usd !== null ? `, $${u.cost_usd}` : ''}`,
    );
  }
  if (r.verdict === 'error' || r.verdict === 'unsupported' || r.verdict === 'invalid' || r.verdict === 'undetected')
    lines.push(`    ${chalk.dim(r.reason)}`);
  for (const a of r.assertions) {
    if (a.outcome === 'fail' || a.outcome === 'error') {
      const col = r.phase === 'violation' && !r.fails_run ? chalk.cyan : chalk.red;
      lines.push(col(`    ✗ ${a.name}: actual ${fmt(a.actual)}, expected ${fmt(a.expected)}`));
    }
  }
  if (r.stderr_tail && r.verdict === 'error')
    lines.push(
      chalk.dim(
        r.stderr_tail
          .trim()
          .split('\n')
          .slice(-5)
          .map((l) => `    | ${l}`)
          .join('\n'),
      ),
    );
  if (r.fixture !== 'removed' && r.fixture !== 'not created') lines.push(chalk.dim(`    fixture kept: ${r.fixture}`));
  return lines.join('\n');
}

export function formatRepeats(stats: RepeatStats[]): string {
  const w = Math.max(8, ...stats.map((s) => `${s.scenario} [${s.target}]`.length));
  const lines = [chalk.bold(`${'scenario'.padEnd(w)}  runs  pass rate  pass^N  95% Wilson`)];
  for (const s of stats) {
    // runs that never ran (unsupported, skipped) are not in the rate: say how many there were
    const rate = s.pass_rate === null ? '–'.padStart(9) : `${(s.pass_rate * 100).toFixed(0).padStart(8)}%`;
    const notRun = s.not_run ? `  ${s.not_run} not run` : '';
    lines.push(
      `${`${s.scenario} [${s.target}]`.padEnd(w)}  ${String(s.runs).padStart(4)}  ${rate}  ${(s.pass_all ? 'yes' : 'no').padStart(6)}  [${s.wilson95[0].toFixed(2)}, ${s.wilson95[1].toFixed(2)}]${notRun}`,
    );
  }
  return lines.join('\n');
}

/** The run's token total (and cost where the agents reported one), for the closing lines. */
export function formatUsageTotal(u: Report['usage_total']): string | undefined {
  if (!u) return undefined;
  const cost = u.cost_usd !== null ? `, $${u.cost_usd} as the agents reported it` : ', cost not reported by the agent';
  return `tokens: ${u.input} in, ${u.output} out over ${u.cells} agent cell(s)${u.estimated ? ' (estimated by the scripted model)' : ''}${cost}`;
}

export function formatClosing(report: Report, reportPath: string): string {
  const s = report.summary;
  const parts = Object.entries(s.by_verdict).map(([v, n]) => `${n} ${v}`);
  const usage = formatUsageTotal(report.usage_total);
  const nothing = report.status === 'completed' ? nothingChecked(report.results) : undefined;
  return [
    chalk.dim(`verdicts: ${parts.join(', ')}`),
    ...(usage ? [chalk.dim(usage)] : []),
    chalk.dim(`report: ${reportPath}`),
    ...(nothing ? [chalk.red(nothing)] : []),
    closingLine(s),
  ].join('\n');
}
