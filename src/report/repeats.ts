import { cellAgent, isChecked, isPassed, type CellResult, type Phase } from '../core/results.js';

export interface RepeatStats {
  scenario: string;
  target: string;
  phase: Phase;
  /** real-model rows: the agent whose repeats these are (a run of several agents has a row per agent) */
  agent?: string;
  /** runs that ran: a checked verdict, or one that fails the run (error, invalid) */
  runs: number;
  passed: number;
  /** null when no run ran: there is no rate to give */
  pass_rate: number | null;
  /** every one of the runs passed, and at least one ran */
  pass_all: boolean;
  /** 95% Wilson score interval of the pass rate ([0, 1] when no run ran) */
  wilson95: [number, number];
  /** runs that checked nothing and are left out of the rate: unsupported or skipped */
  not_run: number;
}

/** Wilson score interval: honest bounds for a rate from few trials (0/N and N/N included). */
export function wilson(passed: number, n: number, z = 1.96): [number, number] {
  if (n === 0) return [0, 1];
  const p = passed / n;
  const denom = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / denom;
  const r = (x: number) => Math.round(x * 1000) / 1000;
  return [r(Math.max(0, centre - half)), r(Math.min(1, centre + half))];
}

/**
 * Per scenario × target × phase (× agent) over its repeats. Only runs that ran count: an unsupported or skipped
 * run checked nothing, so it is neither a pass nor a trial. A run that broke (error, invalid)
 * did run and counts as not passed: leaving it out would raise the rate with every crash.
 */
export function repeatStats(results: CellResult[]): RepeatStats[] {
  const groups = new Map<string, CellResult[]>();
  for (const r of results) {
    const k = `${r.scenario}\u0000${r.target}\u0000${r.phase}\u0000${cellAgent(r) ?? ''}`;
    groups.set(k, [...(groups.get(k) ?? []), r]);
  }
  return [...groups.values()].map((all) => {
    const rs = all.filter((r) => r.fails_run || isChecked(r.verdict));
    const passed = rs.filter(isPassed).length;
    return {
      scenario: all[0].scenario,
      target: all[0].target,
      phase: all[0].phase,
      ...(all[0].phase === 'real-model' && cellAgent(all[0]) ? { agent: cellAgent(all[0]) } : {}),
      runs: rs.length,
      passed,
      pass_rate: rs.length ? Math.round((passed / rs.length) * 1000) / 1000 : null,
      pass_all: rs.length > 0 && passed === rs.length,
      wilson95: wilson(passed, rs.length),
      not_run: all.length - rs.length,
    };
  });
}
