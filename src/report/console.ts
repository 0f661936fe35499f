import chalk from 'chalk';
import type { Report } from '../core/results.js';
import type { RepeatStats } from './repeats.js';
import { closingLine, nothingChecked } from './report.js';

export function formatRepeats(stats: RepeatStats[]): string {
  // a real-model row is the scenario's only phase; deterministic rows name theirs
  const name = (s: RepeatStats) =>
    `${s.scenario} [${s.target}]${s.phase === 'real-model' ? (s.agent ? ` ${s.agent}` : '') : ` ${s.phase}`}`;
  const w = Math.max(8, ...stats.map((s) => name(s).length));
  const lines = [chalk.bold(`${'scenario'.padEnd(w)}  runs  pass rate  pass^N  95% Wilson`)];
  for (const s of stats) {
    // runs that never ran (unsupported, skipped) are not in the rate: say how many there were
    const rate = s.pass_rate === null ? '–'.padStart(9) : `${(s.pass_rate * 100).toFixed(0).padStart(8)}%`;
    const notRun = s.not_run ? `  ${s.not_run} not run` : '';
    lines.push(
      `${name(s).padEnd(w)}  ${String(s.runs).padStart(4)}  ${rate}  ${(s.pass_all ? 'yes' : 'no').padStart(6)}  [${s.wilson95[0].toFixed(2)}, ${s.wilson95[1].toFixed(2)}]${notRun}`,
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
