import chalk from 'chalk';
import { cellAgent, type CellResult, type Matrix, type Verdict } from '../core/results.js';
import { cellStages, stagesLine } from '../core/stages.js';
import { columnVersions, formatVersionChanges, versionChanges } from './diff.js';
import { summarize } from './report.js';

export type { Matrix };

type ColumnCell = Pick<CellResult, 'cell_id' | 'target' | 'phase'> & { agent?: { agent?: string } };

/** The agents of a run's real-model cells, in the order they first appear. */
export const runAgents = (cells: ColumnCell[]): string[] => [
  ...new Set(cells.flatMap((c) => (c.phase === 'real-model' ? [cellAgent(c) ?? '?'] : []))),
];

/** A cell's matrix column: its target, or `target · agent` in a run of several agents (never folded into one). */
export const columnOf = (c: ColumnCell, severalAgents: boolean): string =>
  severalAgents && c.phase === 'real-model' ? `${c.target} \u00b7 ${cellAgent(c) ?? '?'}` : c.target;

/** The matrix's columns: each target, split per agent (in agent order) when the run had several agents. */
export function matrixColumns(
  cells: ColumnCell[],
  targets: string[],
): { key: string; target: string; agent?: string }[] {
  const agents = runAgents(cells);
  if (agents.length < 2) return targets.map((t) => ({ key: t, target: t }));
  return targets.flatMap((target) => {
    const mine = agents.filter((a) => cells.some((c) => c.target === target && cellAgent(c) === a));
    return mine.length
      ? mine.map((agent) => ({
          key: columnOf({ cell_id: '', target, phase: 'real-model', agent: { agent } }, true),
          target,
          agent,
        }))
      : [{ key: target, target }];
  });
}

/** Scenarios as rows, targets (target × agent with several agents) as columns, phase verdicts in the cells, totals per column. */
export function buildMatrix(results: CellResult[], targetNames: string[]): Matrix {
  const columns = matrixColumns(results, targetNames);
  const several = columns.some((c) => c.agent);
  const targets = columns.map((c) => c.key);
  const scenarios = [...new Set(results.map((r) => r.scenario))];
  const rows = scenarios.map((scenario) => {
    const cells: Matrix['rows'][number]['cells'] = {};
    for (const t of targets) {
      const mine = results.filter((r) => r.scenario === scenario && columnOf(r, several) === t);
      const cell: Matrix['rows'][number]['cells'][string] = { fails_run: mine.some((r) => r.fails_run) };
      for (const r of mine) {
        cell[r.phase] = r.verdict;
        const line = stagesLine(cellStages(r.assertions));
        if (line) cell.stages = { ...cell.stages, [r.phase]: line };
      }
      cells[t] = cell;
    }
    const taxonomy = [...new Set(results.filter((r) => r.scenario === scenario).flatMap((r) => r.taxonomy ?? []))];
    return { scenario, cells, ...(taxonomy.length ? { taxonomy } : {}) };
  });
  const totals: Matrix['totals'] = {};
  for (const t of targets) {
    const { passed, failed, unsupported, skipped, by_verdict } = summarize(
      results.filter((r) => columnOf(r, several) === t),
      false,
    );
    totals[t] = { passed, failed, unsupported, skipped, by_verdict };
  }
  const versions = several ? undefined : columnVersions(results, targets);
  return {
    targets,
    ...(several ? { agents: Object.fromEntries(columns.flatMap((c) => (c.agent ? [[c.key, c.agent]] : []))) } : {}),
    rows,
    totals,
    ...(versions ? { versions, version_changes: versionChanges(results, versions) } : {}),
  };
}

const SHORT: Record<Verdict, string> = {
  pass: 'pass',
  fail: 'FAIL',
  defended: 'defended',
  detected: 'detected',
  undetected: 'UNDETECTED',
  flaky: 'FLAKY',
  unsupported: 'unsupported',
  invalid: 'INVALID',
  error: 'ERROR',
  skipped: 'skipped',
};

export function formatMatrix(m: Matrix): string {
  // "!" marks a cell that fails the run (also when color is off)
  const cellText = (c: Matrix['rows'][number]['cells'][string]) =>
    (c['real-model'] ? [c['real-model']] : [c['well-behaved'], c.violation])
      .map((v) => (v ? SHORT[v] : '-'))
      .join(' / ') + (c.fails_run ? ' !' : '');
  const [label, total] = totalsFormat(m);
  const w0 = Math.max(8, label.length, ...m.rows.map((r) => r.scenario.length));
  // several versions of one target: a line under the names gives each column's version
  const version = (t: string) => (m.versions?.[t] ? `version ${m.versions[t]}` : '');
  const widths = m.targets.map((t) =>
    Math.max(t.length, version(t).length, total(t).length, ...m.rows.map((r) => cellText(r.cells[t]).length)),
  );
  const pad = (s: string, w: number) => s + ' '.repeat(Math.max(0, w - s.length));
  const lines = [
    chalk.dim(
      m.rows.some((r) => Object.values(r.cells).some((c) => c['real-model']))
        ? 'each cell: real-model verdict; ! fails the run'
        : 'each cell: well-behaved / violation; ! fails the run',
    ),
    chalk.bold(`${pad('scenario', w0)}  ${m.targets.map((t, i) => pad(t, widths[i])).join('  ')}`),
    ...(m.versions
      ? [chalk.dim(`${pad('', w0)}  ${m.targets.map((t, i) => pad(version(t), widths[i])).join('  ')}`)]
      : []),
  ];
  for (const r of m.rows) {
    const cells = m.targets.map((t, i) => {
      const text = pad(cellText(r.cells[t]), widths[i]);
      return r.cells[t].fails_run ? chalk.red(text) : text;
    });
    lines.push(`${pad(r.scenario, w0)}  ${cells.join('  ')}`);
  }
  lines.push(`${pad(label, w0)}  ${m.targets.map((t, i) => pad(total(t), widths[i])).join('  ')}`);
  if (m.version_changes?.length) lines.push('', ...formatVersionChanges(m.version_changes));
  return lines.join('\n');
}

/**
 * The totals row: `passed / failed / unsupported` per target (unsupported checked nothing, so it
 * is never among the passed), `/ flaky` when a cell passed only on a retry (never a pass either),
 * `/ skipped` too when an interrupted run left some.
 */
export function totalsFormat(m: Matrix): [string, (target: string) => string] {
  const withSkipped = m.targets.some((t) => m.totals[t]?.skipped);
  const withFlaky = m.targets.some((t) => m.totals[t]?.by_verdict.flaky);
  const label = `passed / failed / unsupported${withFlaky ? ' / flaky' : ''}${withSkipped ? ' / skipped' : ''}`;
  const total = (t: string) => {
    const x = m.totals[t];
    if (!x) return '';
    // a report written before unsupported was counted apart has it inside passed
    const unsupported = x.unsupported ?? x.by_verdict.unsupported ?? 0;
    const passed = x.unsupported === undefined ? x.passed - unsupported : x.passed;
    return `${passed} / ${x.failed} / ${unsupported}${withFlaky ? ` / ${x.by_verdict.flaky ?? 0}` : ''}${withSkipped ? ` / ${x.skipped ?? x.by_verdict.skipped ?? 0}` : ''}`;
  };
  return [label, total];
}
