import type { CellResult } from '../core/results.js';

export interface RepeatStats {
  scenario: string;
  target: string;
  runs: number;
  passed: number;
  pass_rate: number;
  /** every one of the N runs passed */
  pass_all: boolean;
  /** 95% Wilson score interval of the pass rate */
  wilson95: [number, number];
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

/** A run passes when it does not fail the run and really ran (skipped runs are left out). */
export function repeatStats(results: CellResult[]): RepeatStats[] {
  const groups = new Map<string, CellResult[]>();
  for (const r of results) {
    if (r.verdict === 'skipped') continue;
    const k = `${r.scenario}\u0000${r.target}`;
    groups.set(k, [...(groups.get(k) ?? []), r]);
  }
  return [...groups.values()].map((rs) => {
    const passed = rs.filter((r) => !r.fails_run).length;
    return {
      scenario: rs[0].scenario,
      target: rs[0].target,
      runs: rs.length,
      passed,
      pass_rate: Math.round((passed / rs.length) * 1000) / 1000,
      pass_all: passed === rs.length,
      wilson95: wilson(passed, rs.length),
    };
  });
}
