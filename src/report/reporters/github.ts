import { appendFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Report } from '../../core/results.js';
import { nothingChecked } from '../report.js';
import { failureReason } from './explain.js';
import { renderMarkdown } from './markdown.js';
import type { Reporter } from './types.js';

/** Workflow-command data: `%`, CR and LF must be escaped, properties also `:` and `,`. */
const data = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const prop = (s: string) => data(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

/** `::error` lines for every run-failing cell, pointing at its scenario file, and one for a run that checked nothing. */
export function renderAnnotations(
  report: Report,
  scenarioFiles: Record<string, string>,
  cwd = process.cwd(),
): string[] {
  const nothing = report.status === 'completed' ? nothingChecked(report.results) : undefined;
  return [
    ...cellAnnotations(report, scenarioFiles, cwd),
    ...(nothing ? [`::error title=${prop('memeval: nothing was checked')}::${data(nothing)}`] : []),
  ];
}

function cellAnnotations(report: Report, scenarioFiles: Record<string, string>, cwd: string): string[] {
  return report.results
    .filter((r) => r.fails_run)
    .map((r) => {
      const file = scenarioFiles[r.scenario];
      const props = [
        ...(file ? [`file=${prop(relative(cwd, file))}`] : []),
        `title=${prop(`memeval ${r.verdict}: ${r.cell_id}`)}`,
      ];
      return `::error ${props.join(',')}::${data(failureReason(r))}`;
    });
}

/** GitHub Actions: the Markdown scoreboard appended to the job summary, and error annotations. */
export const github: Reporter = {
  write(report, ctx) {
    // annotation paths are relative to the repository root the workflow checked out
    for (const line of renderAnnotations(report, ctx.scenarioFiles, ctx.env.GITHUB_WORKSPACE ?? process.cwd()))
      ctx.stdout(line);
    const summary = ctx.env.GITHUB_STEP_SUMMARY;
    if (!summary) return [];
    appendFileSync(summary, renderMarkdown(report));
    return [summary];
  },
};
