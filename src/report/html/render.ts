import type { Report } from '../../core/results.js';
import type { PartialReport } from '../run-log.js';
import type { CompareModel } from './compare.js';
import type { CellExtras } from './gather.js';
import { pageModel } from './model.js';
import { PAGE_CSS, PAGE_JS } from './page.js';

/** JSON inside a <script> element: `<` escaped so no `</script>` or `<!--` in the data ends it. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** A run without its report says so first, in the markup itself: what it shows is not the whole run. */
function liveBanner(l: PartialReport['live']): string {
  const rest = l.planned - l.finished;
  return `<p class="live" id="live">${esc(`${l.state}: ${l.finished} of ${l.planned} cells finished`)}<span class="meta">${esc(
    ` \u2014 ${l.why}; ${rest} cell(s) ${l.state === 'running' ? 'still pending (run memeval view again to see more)' : 'never finished'}`,
  )}</span></p>`;
}

/** A comparison with an earlier run: the changed cells, and that run's cells and extras for their detail. */
export interface PageCompare {
  model: CompareModel;
  other: { results: Report['results']; extras: Record<string, CellExtras> };
}

/** One self-contained page: data, style and script inline; no request leaves the file. */
export function renderHtml(
  report: Report | PartialReport,
  extras: Record<string, CellExtras>,
  compare?: PageCompare,
): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>memeval ${esc(report.run_id)}${compare ? ` compared with ${esc(compare.model.earlier.run_id)}` : ''}</title>
<style>${PAGE_CSS}</style>
</head>
<body>
<header>${report.status === 'running' || report.status === 'cut off' ? liveBanner(report.live) : ''}<h1 id="title">memeval</h1><div class="meta" id="meta"></div><ul class="warnings" id="run-warnings"></ul></header>
<main>
  <section><section id="compare" class="hidden"></section><div class="filters" id="filters"></div><div class="chips" id="chips"></div><div class="matrix-wrap" id="matrix-wrap"><table class="matrix" id="matrix"></table></div></section>
  <section id="detail"></section>
</main>
<script type="application/json" id="memeval-data">${scriptJson({ report, extras, model: pageModel(report), ...(compare ? { compare } : {}) })}</script>
<script>${PAGE_JS}</script>
</body>
</html>
`;
}
