import type { Report } from '../../core/results.js';
import type { PartialReport } from '../run-log.js';
import type { CellExtras } from './gather.js';
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

/** One self-contained page: data, style and script inline; no request leaves the file. */
export function renderHtml(report: Report | PartialReport, extras: Record<string, CellExtras>): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>memeval ${esc(report.run_id)}</title>
<style>${PAGE_CSS}</style>
</head>
<body>
<header>${report.status === 'running' || report.status === 'cut off' ? liveBanner(report.live) : ''}<h1 id="title">memeval</h1><div class="meta" id="meta"></div><ul class="warnings" id="run-warnings"></ul></header>
<main>
  <section><div class="filters" id="filters"></div><table class="matrix" id="matrix"></table></section>
  <section id="detail"></section>
</main>
<script type="application/json" id="memeval-data">${scriptJson({ report, extras })}</script>
<script>${PAGE_JS}</script>
</body>
</html>
`;
}
