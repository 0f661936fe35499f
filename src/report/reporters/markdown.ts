import { join } from 'node:path';
import type { CellResult, Report } from '../../core/results.js';
import { cellStages, stagesLine } from '../../core/stages.js';
import { taxonomyHeading } from '../../core/taxonomy.js';
import { columnOf } from '../matrix.js';
import { writeFileAtomic } from '../write.js';
import { closingLine, nothingChecked } from '../report.js';
import { aboutText, failureReason } from './explain.js';
import type { Reporter } from './types.js';

const md = (s: string) => s.replace(/[|\\`*_<>]/g, (c) => `\\${c}`).replace(/\n/g, ' ');

function cellText(rs: CellResult[]): string {
  if (!rs.length) return '–';
  const text = rs
    .map((r) => (r.fails_run ? `**${r.verdict}**` : r.verdict === 'flaky' ? `_flaky_` : r.verdict))
    .join(' / ');
  return rs.some((r) => r.fails_run) ? `❌ ${text}` : rs.some((r) => r.verdict === 'flaky') ? `⚠️ ${text}` : text;
}

/**
 * The cells whose assertions name stages, grouped by the published risk their scenario maps to
 * (OWASP-ASI06, …; core/taxonomy.ts), then the rest: a line per cell that reads
 * "poison-x [agentdb] well-behaved: fail: written verbatim, unmarked, …".
 */
function stageSections(results: CellResult[]): string[] {
  const staged = results.filter((r) => cellStages(r.assertions).length);
  if (!staged.length) return [];
  const groups = [...new Set(staged.flatMap((r) => r.taxonomy ?? []))].map((id) => ({
    title: `${id}: ${taxonomyHeading(id)}`,
    cells: staged.filter((r) => r.taxonomy?.includes(id)),
  }));
  const rest = staged.filter((r) => !r.taxonomy?.length);
  if (rest.length) groups.push({ title: 'Stages', cells: rest });
  return groups.flatMap((g) => [
    `### ${md(g.title)}`,
    '',
    ...g.cells.map(
      (r) =>
        `- \`${r.scenario}\` [${md(r.target)}] ${r.phase}: ${r.fails_run ? `**${r.verdict}**` : r.verdict}: ${md(stagesLine(cellStages(r.assertions)))}`,
    ),
    '',
  ]);
}

/** The scoreboard and every run-failing cell, as GitHub-flavoured Markdown (also the job summary). */
export function renderMarkdown(report: Report): string {
  const s = report.summary;
  const targets = report.matrix.targets.length
    ? report.matrix.targets
    : [...new Set(report.results.map((r) => r.target))];
  const scenarios = [...new Set(report.results.map((r) => r.scenario))];
  const ok = s.exit_code === 0 && report.status === 'completed';
  const nothing = report.status === 'completed' ? nothingChecked(report.results) : undefined;
  const lines = [
    `## memeval ${ok ? '✅' : '❌'} ${closingLine(s)} (${s.cells} cells)`,
    '',
    `Run \`${report.run_id}\`, ${report.layer} layer, status ${report.status}${report.reason ? ` (${md(report.reason)})` : ''}, memeval ${report.memeval_version}.`,
    '',
    ...(nothing ? [`**${md(nothing)}**`, ''] : []),
  ];
  if (scenarios.length) {
    const phases = report.layer === 'real-model' ? 'real-model verdict' : 'well-behaved / violation';
    lines.push(
      `| scenario (${phases}) | ${targets.map((t) => md(t) + (report.matrix.versions?.[t] ? ` (${report.matrix.versions[t]})` : '')).join(' | ')} |`,
      `|---|${targets.map(() => '---').join('|')}|`,
    );
    for (const sc of scenarios)
      lines.push(
        `| ${md(sc)} | ${targets.map((t) => cellText(report.results.filter((r) => r.scenario === sc && columnOf(r, Boolean(report.matrix.agents)) === t))).join(' | ')} |`,
      );
    lines.push('');
  }
  lines.push(...stageSections(report.results));
  const failing = report.results.filter((r) => r.fails_run);
  if (failing.length) {
    lines.push(`### Cells that fail the run`, '');
    for (const r of failing) {
      lines.push(`- \`${r.cell_id}\` **${r.verdict}**: ${md(failureReason(r))}`);
      const why = aboutText(r.about, 500);
      if (why) lines.push(`  - why: ${md(why)}`);
    }
    lines.push('');
  }
  const flaky = report.results.filter((r) => r.verdict === 'flaky' && !r.fails_run);
  if (flaky.length) {
    lines.push(`### Flaky cells (passed only on a retry; not counted as passed)`, '');
    for (const r of flaky) lines.push(`- \`${r.cell_id}\` **flaky**: ${md(r.reason)}`);
    lines.push('');
  }
  for (const w of report.warnings) lines.push(`> ⚠️ ${md(w)}`);
  return lines.join('\n') + '\n';
}

export const markdown: Reporter = {
  write(report, ctx) {
    const file = join(ctx.runDir, 'summary.md');
    writeFileAtomic(file, renderMarkdown(report));
    return [file];
  },
};
