import chalk from 'chalk';
import type { CellResult, Matrix, Verdict } from '../core/results.js';
import { summarize } from './report.js';

export type { Matrix };

/** Scenarios as rows, targets as columns, phase verdicts in the cells, totals per target. */
export function buildMatrix(results: CellResult[], targets: string[]): Matrix {
  const scenarios = [...new Set(results.map((r) => r.scenario))];
  const rows = scenarios.map((scenario) => {
    const cells: Matrix['rows'][number]['cells'] = {};
    for (const t of targets) {
      const mine = results.filter((r) => r.scenario === scenario && r.target === t);
      const cell: Matrix['rows'][number]['cells'][string] = { fails_run: mine.some((r) => r.fails_run) };
      for (const r of mine) cell[r.phase] = r.verdict;
      cells[t] = cell;
    }
    return { scenario, cells };
  });
  const totals: Matrix['totals'] = {};
  for (const t of targets) {
    const { passed, failed, by_verdict } = summarize(
      results.filter((r) => r.target === t),
      false,
    );
    totals[t] = { passed, failed, by_verdict };
  }
  return { targets, rows, totals };
}

const SHORT: Record<Verdict, string> = {
  pass: 'pass',
  fail: 'FAIL',
  defended: 'defended',
  detected: 'detected',
  undetected: 'UNDETECTED',
  unsupported: 'unsupported',
  invalid: 'INVALID',
  error: 'ERROR',
  skipped: 'skipped',
};

export function formatMatrix(m: Matrix): string {
  // "!" marks a cell that fails the run (also when color is off)
  const cellText = (c: Matrix['rows'][number]['cells'][string]) =>
    (c['real-model'] ? [c['real-model']] : [c['well-behaved'], c.violation]).map((v) => (v ? SHORT[v] : '-')).join(' / ') + (c.fails_run ? ' !' : '');
  const w0 = Math.max(8, ...m.rows.map((r) => r.scenario.length));
  const widths = m.targets.map((t) => Math.max(t.length, ...m.rows.map((r) => cellText(r.cells[t]).length)));
  const pad = (s: string, w: number) => s + ' '.repeat(Math.max(0, w - s.length));
  const lines = [
    chalk.dim(m.rows.some((r) => Object.values(r.cells).some((c) => c['real-model'])) ? 'each cell: real-model verdict; ! fails the run' : 'each cell: well-behaved / violation; ! fails the run'),
    chalk.bold(`${pad('scenario', w0)}  ${m.targets.map((t, i) => pad(t, widths[i])).join('  ')}`),
  ];
  for (const r of m.rows) {
    const cells = m.targets.map((t, i) => {
      const text = pad(cellText(r.cells[t]), widths[i]);
      return r.cells[t].fails_run ? chalk.red(text) : text;
    });
    lines.push(`${pad(r.scenario, w0)}  ${cells.join('  ')}`);
  }
  lines.push(`${pad('passed / failed', w0)}  ${m.targets.map((t, i) => pad(`${m.totals[t].passed} / ${m.totals[t].failed}`, widths[i])).join('  ')}`);
  return lines.join('\n');
}
