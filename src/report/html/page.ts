/**
 * The HTML report's style and script, inlined into the one file so that it works from
 * file:// with no network. The script builds the DOM with textContent only: report data
 * (scenario text, tool results) is never parsed as HTML.
 */
export const PAGE_CSS = `
:root { --fail: #b3261e; --ok: #1b7f3b; --caught: #0b6e99; --warn: #8a6100; --muted: #666; --line: #ddd; --scenario-w: 220px; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #1d1d1f; background: #fafafa; }
header { padding: 12px 20px; background: #fff; border-bottom: 1px solid var(--line); }
header h1 { font-size: 18px; margin: 0 0 4px; }
.meta { color: var(--muted); font-size: 12px; }
.bad { color: var(--fail); } .good { color: var(--ok); }
/* one column up to 1500 px (the detail under the matrix); beside it on wider screens, never over it */
main { display: grid; grid-template-columns: minmax(0, 1fr); gap: 16px; padding: 16px 20px; }
main > section { min-width: 0; }
@media (min-width: 1500px) {
  main { grid-template-columns: minmax(0, 1fr) minmax(420px, 36%); }
  #detail { position: sticky; top: 8px; max-height: calc(100vh - 16px); overflow: auto; }
}
.filters { display: flex; gap: 10px; flex-wrap: wrap; align-items: center; margin-bottom: 8px; }
.filters label { font-size: 12px; color: var(--muted); }
.chips { display: flex; gap: 6px; flex-wrap: wrap; margin: 6px 0 0; }
button.chip { font: 12px system-ui, sans-serif; padding: 2px 10px; border: 1px solid var(--line); border-radius: 12px; background: #fff; cursor: pointer; }
button.chip .n { font-weight: 700; margin-left: 4px; }
button.chip.bad { border-color: var(--fail); color: var(--fail); }
button.chip.known { border-color: var(--warn); color: var(--warn); }
button.chip.good { border-color: var(--ok); color: var(--ok); }
button.chip.caught { border-color: var(--caught); color: var(--caught); }
button.chip.active { background: #333; border-color: #333; color: #fff; }
/* the matrix scrolls sideways inside its column; the scenario column stays put */
.matrix-wrap { overflow-x: auto; max-width: 100%; scroll-padding-left: calc(var(--scenario-w) + 8px); border: 1px solid var(--line); background: #fff; }
table.matrix { border-collapse: separate; border-spacing: 0; background: #fff; min-width: 100%; }
.matrix th, .matrix td { border-right: 1px solid var(--line); border-bottom: 1px solid var(--line); padding: 4px 6px; text-align: left; vertical-align: top; min-width: 130px; }
.matrix th { background: #f2f2f2; font-weight: 600; font-size: 12px; }
.matrix th .agent { font-weight: 400; color: var(--muted); }
.matrix th:first-child, .matrix td:first-child { position: sticky; left: 0; z-index: 2; width: var(--scenario-w); min-width: var(--scenario-w); max-width: var(--scenario-w); overflow-wrap: anywhere; box-shadow: 2px 0 0 var(--line); }
.matrix td:first-child { background: #fff; }
.matrix td.scenario { font-family: ui-monospace, monospace; font-size: 12px; }
button.cell { display: block; width: 100%; margin: 1px 0; padding: 2px 6px; border: 1px solid var(--line); border-radius: 4px; background: #fff; cursor: pointer; text-align: left; font: 12px ui-monospace, monospace; white-space: normal; }
button.cell .gate { display: block; font: 11px system-ui, sans-serif; }
button.cell.fails { background: #fdecea; border-color: var(--fail); color: var(--fail); font-weight: 600; }
button.cell.known { background: #fff7e0; border-color: var(--warn); color: var(--warn); }
button.cell.caught { color: var(--caught); }
button.cell.ok { color: var(--ok); }
button.cell.neutral { color: var(--warn); }
button.cell.flaky { color: var(--warn); border-style: dashed; font-weight: 600; }
button.cell.fixed { border-color: var(--ok); }
button.cell.selected { outline: 2px solid #333; }
tr.totals td { font-size: 12px; color: var(--muted); }
#compare { margin: 0 0 16px; }
#compare h2 { font-size: 16px; margin: 0 0 4px; }
button.change { display: block; width: 100%; margin: 1px 0; padding: 2px 6px; border: 1px solid var(--line); border-radius: 4px; background: #fff; text-align: left; font: 12px ui-monospace, monospace; cursor: pointer; }
button.change.regressed, button.change.failing-differently { background: #fdecea; border-color: var(--fail); color: var(--fail); font-weight: 600; }
button.change.fixed { background: #e9f6ee; border-color: var(--ok); color: var(--ok); }
button.change.removed, button.change.not-checked { color: var(--warn); }
button.change .kind { display: block; font: 11px system-ui, sans-serif; }
#detail { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 12px 16px; min-height: 200px; overflow-wrap: anywhere; }
#detail h2 { font-size: 16px; margin: 0 0 6px; }
#detail h3 { font-size: 13px; margin: 14px 0 4px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
.assertion { border: 1px solid var(--line); border-radius: 4px; padding: 6px 8px; margin: 4px 0; }
.assertion.failing { border-color: var(--fail); background: #fdecea; }
.assertion.caught { border-color: var(--caught); background: #e8f4fa; }
.about { margin: 6px 0; padding: 6px 8px; border-left: 3px solid var(--line); font-size: 13px; }
.about-title { font-weight: 600; }
.matrix td.scenario .about-title { font-family: system-ui, sans-serif; font-weight: 400; color: var(--muted); font-size: 11px; }
.assertion .kv { display: grid; grid-template-columns: 80px 1fr; gap: 2px 8px; font-size: 12px; }
pre { white-space: pre-wrap; font: 12px/1.35 ui-monospace, monospace; background: #f6f6f6; padding: 6px; border-radius: 4px; margin: 2px 0; max-height: 320px; overflow: auto; }
table.small { border-collapse: collapse; width: 100%; font-size: 12px; }
table.small td, table.small th { border-bottom: 1px solid var(--line); padding: 2px 4px; text-align: left; vertical-align: top; }
.err { color: var(--fail); }
ul.warnings { margin: 6px 0 0; padding-left: 20px; }
ul.warnings li { color: var(--warn); font-size: 13px; }
ul.warnings .count { font-weight: 700; }
details.more-warnings summary { color: var(--warn); font-size: 12px; cursor: pointer; }
.hidden { display: none !important; }
p.live { margin: 0 0 6px; padding: 6px 10px; font-size: 16px; font-weight: 600; color: var(--warn); background: #fff7e0; border: 1px solid var(--warn); border-radius: 4px; }
span.cell.pending { display: block; margin: 1px 0; padding: 2px 6px; border: 1px dashed var(--line); border-radius: 4px; color: var(--muted); font: 12px ui-monospace, monospace; }
`;

export const PAGE_JS = `
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('memeval-data').textContent);
  var report = data.report, extras = data.extras;

  function h(tag, attrs) {
    var el = document.createElement(tag);
    for (var k in attrs || {}) {
      if (k === 'class') el.className = attrs[k];
      else if (k === 'text') el.textContent = attrs[k];
      else if (k.slice(0, 2) === 'on') el.addEventListener(k.slice(2), attrs[k]);
      else el.setAttribute(k, attrs[k]);
    }
    for (var i = 2; i < arguments.length; i++) {
      var c = arguments[i];
      if (c == null) continue;
      el.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
    }
    return el;
  }
  function show(v) { return typeof v === 'string' ? v : JSON.stringify(v, null, 2); }
  // a violation an assertion observed, in a cell that does not fail the run: the instrument working,
  // in either layer. Shown as "caught" everywhere on the page (chip, filter, cell, detail), never also as "detected"
  function isCaught(r) { return r.verdict === 'detected' && !r.fails_run; }
  function shown(r) { return isCaught(r) ? 'caught' : r.verdict; }
  function guardsOf(a) { return [a.defence ? 'the ' + a.defence + ' defence' : '', a.tags && a.tags.length ? 'tags ' + a.tags.join(', ') : ''].filter(Boolean).join('; '); }
  var model = data.model, compare = data.compare;
  var gateOf = function (r) { var c = model.cells[r.cell_id]; return c && c.gate; };
  // a failure the baseline or expected failures accept does not fail the run: never drawn as one
  var counts = function (r) { return r.fails_run && gateOf(r) !== 'known failure'; };

  // header
  var s = report.summary;
  var ok = s.exit_code === 0 && report.status === 'completed';
  // unsupported and skipped cells checked nothing: counted apart, never among the passed
  var apart = (s.unsupported ? ', ' + s.unsupported + ' unsupported' : '') + (s.skipped ? ', ' + s.skipped + ' skipped' : '');
  var nothing = s.checked === 0 && report.status === 'completed' ? ' \\u2014 nothing was checked' : '';
  var g = model.gate;
  var gateText = g ? ' \\u2014 ' + [g.known ? g.known + ' known failure' + (g.known > 1 ? 's' : '') + ' accepted' : '', g.new ? g.new + ' new failure' + (g.new > 1 ? 's' : '') : '', g.fixed ? g.fixed + ' fixed' : ''].filter(Boolean).join(', ') : '';
  if (gateText === ' \\u2014 ') gateText = '';
  // a run without its report (still running, or cut off): its counts are of the finished cells only
  var live = report.live;
  var pending = live ? live.pending : [];
  document.getElementById('title').textContent = live
    ? 'memeval ' + live.state + ': ' + live.finished + ' of ' + live.planned + ' cells finished \\u2014 so far ' + s.passed + ' passed, ' + s.failed + ' failed' + apart
    : 'memeval ' + (ok ? '\\u2713 ' : '\\u2717 ') + s.passed + ' passed, ' + s.failed + ' failed' + apart + ' (' + s.cells + ' cells)' + nothing + gateText;
  document.getElementById('title').className = live ? (s.failed ? 'bad' : '') : ok ? 'good' : 'bad';
  var o = report.options || {};
  document.getElementById('meta').textContent = 'run ' + report.run_id + ' \\u00b7 ' + report.layer + ' layer \\u00b7 status ' + report.status +
    ' \\u00b7 memeval ' + report.memeval_version + ' \\u00b7 ' + report.started_at + ' \\u2192 ' + report.ended_at +
    (model.agents.length ? ' \\u00b7 agent' + (model.agents.length > 1 ? 's: ' : ': ') + model.agents.join(', ') + (o.model ? ' on model ' + o.model : '') + (o.repeat > 1 ? ', ' + o.repeat + ' repeats' : '') : '') +
    ' \\u00b7 targets: ' + report.targets.map(function (t) { return t.name + ' ' + t.version; }).join(', ');

  // warnings: one line per distinct warning, with how often and for which targets; past three, folded
  var runWarnings = document.getElementById('run-warnings');
  function warningItem(w) {
    return h('li', { class: 'warning' }, w.count > 1 ? h('span', { class: 'count', text: '\\u00d7' + w.count + ' ' }) : null, w.text,
      w.targets.length ? h('span', { class: 'meta', text: ' (' + w.targets.join(', ') + ')' }) : null);
  }
  model.warnings.slice(0, 3).forEach(function (w) { runWarnings.appendChild(warningItem(w)); });
  if (model.warnings.length > 3) {
    var more = h('ul', { class: 'warnings' });
    model.warnings.slice(3).forEach(function (w) { more.appendChild(warningItem(w)); });
    runWarnings.parentNode.appendChild(h('details', { class: 'more-warnings' }, h('summary', { text: (model.warnings.length - 3) + ' more warning(s)' }), more));
  }

  var columns = model.columns;
  var scenarios = Array.from(new Set(report.results.concat(pending).map(function (r) { return r.scenario; })));
  var verdicts = Array.from(new Set(report.results.map(shown)));

  // filters
  var fTarget = h('select', { id: 'filter-target' }, h('option', { value: '', text: 'all columns' }));
  columns.forEach(function (c) { fTarget.appendChild(h('option', { value: c.key, text: c.key })); });
  var fVerdict = h('select', { id: 'filter-verdict' }, h('option', { value: '', text: 'all verdicts' }));
  verdicts.forEach(function (v) { fVerdict.appendChild(h('option', { value: v, text: v })); });
  var fFailing = h('input', { type: 'checkbox', id: 'filter-failing' });
  var fText = h('input', { type: 'search', id: 'filter-text', placeholder: 'scenario contains\\u2026' });
  // risk: a published risk the scenarios' tags map to (OWASP-ASI06, …) or a tag
  var fGroup = h('select', { id: 'filter-group' }, h('option', { value: '', text: 'all risks and tags' }));
  model.groups.forEach(function (g) { fGroup.appendChild(h('option', { value: g.value, text: g.text })); });
  var groupsOf = function (r) { var c = model.cells[r.cell_id]; return (c && c.groups) || []; };
  var fGate = '';
  document.getElementById('filters').append(
    h('label', null, 'column ', fTarget), h('label', null, 'verdict ', fVerdict),
    model.groups.length ? h('label', null, 'risk ', fGroup) : null,
    h('label', null, fFailing, ' only cells that fail the run'), h('label', null, fText));

  // verdict-count chips: a click filters the matrix to those cells, a second click clears it
  var chips = document.getElementById('chips');
  var chipEls = [];
  function chip(kind, value, text, n, klass) {
    var b = h('button', { class: 'chip ' + (klass || ''), 'data-chip': kind + ':' + value, type: 'button' }, text, h('span', { class: 'n', text: String(n) }));
    b.addEventListener('click', function () {
      var on = b.classList.contains('active');
      fVerdict.value = ''; fFailing.checked = false; fGate = '';
      if (!on) { if (kind === 'verdict') fVerdict.value = value; else if (kind === 'fails') fFailing.checked = true; else fGate = value; }
      applyFilters();
    });
    chipEls.push({ el: b, kind: kind, value: value });
    chips.appendChild(b);
  }
  var failingNow = report.results.filter(counts).length;
  if (failingNow) chip('fails', 'run', 'fail the run', failingNow, 'bad');
  verdicts.forEach(function (v) {
    var n = report.results.filter(function (r) { return shown(r) === v; }).length;
    var bad = report.results.some(function (r) { return shown(r) === v && counts(r); });
    chip('verdict', v, v, n, bad ? 'bad' : v === 'pass' || v === 'defended' ? 'good' : v === 'caught' ? 'caught' : '');
  });
  ['known failure', 'new failure', 'fixed', 'not checked'].forEach(function (m) {
    var n = report.results.filter(function (r) { return gateOf(r) === m; }).length;
    if (n) chip('gate', m, m, n, m === 'new failure' ? 'bad' : m === 'fixed' ? 'good' : 'known');
  });

  function cls(r) {
    var mark = gateOf(r);
    if (mark === 'known failure') return 'known';
    if (r.fails_run) return 'fails';
    if (isCaught(r)) return 'caught';
    if (r.verdict === 'flaky') return 'flaky';
    if (r.verdict === 'pass' || r.verdict === 'defended') return 'ok' + (mark === 'fixed' ? ' fixed' : '');
    return 'neutral';
  }

  // matrix: one row per scenario, one column per target (per target and agent with several agents), one button per cell
  var table = document.getElementById('matrix');
  var head = h('tr', null, h('th', { text: 'scenario' }));
  columns.forEach(function (c) {
    head.appendChild(h('th', { 'data-column': c.key, 'data-target': c.target }, c.target,
      c.agent ? h('div', { class: 'agent', text: 'agent ' + c.agent }) : null,
      c.version ? h('div', { class: 'meta', text: 'version ' + c.version }) : null));
  });
  table.appendChild(h('thead', null, head));
  var body = h('tbody');
  var buttons = [];
  var colOf = function (r) { var c = model.cells[r.cell_id]; return c ? c.column : r.target; };
  var labelOf = function (r) { var c = model.cells[r.cell_id]; return c ? c.label : r.phase; };
  scenarios.forEach(function (sc) {
    var first = report.results.find(function (r) { return r.scenario === sc && r.about; });
    var about = first && first.about;
    var row = h('tr', { 'data-scenario': sc }, h('td', { class: 'scenario', title: about ? about.description + (guardsOf(about) ? ' (guards: ' + guardsOf(about) + ')' : '') : '' }, sc,
      about ? h('div', { class: 'about-title', text: about.title }) : null));
    columns.forEach(function (col) {
      var td = h('td', { 'data-column': col.key });
      report.results.filter(function (r) { return r.scenario === sc && colOf(r) === col.key; }).forEach(function (r) {
        var mark = gateOf(r);
        var label = labelOf(r) + ': ' + shown(r) + (counts(r) ? ' !' : '');
        var b = h('button', { class: 'cell ' + cls(r), 'data-cell-id': r.cell_id, 'data-verdict': r.verdict, 'data-fails': String(r.fails_run), 'data-counts': String(counts(r)),
          'data-gate': mark || '', title: r.reason, onclick: function () { select(r); } }, label, mark ? h('span', { class: 'gate', text: mark }) : null);
        buttons.push({ el: b, r: r });
        td.appendChild(b);
      });
      // not finished yet: no verdict, so no button to a detail
      pending.filter(function (p) { return p.scenario === sc && colOf(p) === col.key; }).forEach(function (p) {
        td.appendChild(h('span', { class: 'cell pending', 'data-cell-id': p.cell_id, text: labelOf(p) + ': pending' }));
      });
      row.appendChild(td);
    });
    body.appendChild(row);
  });
  // per column: passed / failed / unsupported (flaky cells, passed only on a retry, never passes: a column of their own when there are any)
  var withFlaky = report.results.some(function (r) { return r.verdict === 'flaky'; });
  var totals = h('tr', { class: 'totals' }, h('td', { text: 'passed / failed / unsupported' + (withFlaky ? ' / flaky' : '') }));
  columns.forEach(function (col) {
    var x = report.matrix.totals[col.key];
    var mine = report.results.filter(function (r) { return colOf(r) === col.key; });
    var n = function (f) { return mine.filter(f).length; };
    var text = x
      ? x.passed + ' / ' + x.failed + ' / ' + (x.unsupported != null ? x.unsupported : x.by_verdict.unsupported || 0) + (withFlaky ? ' / ' + (x.by_verdict.flaky || 0) : '')
      : n(function (r) { return !r.fails_run && ['pass', 'fail', 'defended', 'detected', 'undetected'].indexOf(r.verdict) >= 0; }) + ' / ' + n(function (r) { return r.fails_run; }) + ' / ' +
        n(function (r) { return r.verdict === 'unsupported'; }) + (withFlaky ? ' / ' + n(function (r) { return r.verdict === 'flaky'; }) : '');
    totals.appendChild(h('td', { 'data-column': col.key, 'data-target': col.target, text: text }));
  });
  body.appendChild(totals);
  table.appendChild(body);
  // what changed from each version of a target to the next (older -> newer)
  (report.matrix.version_changes || []).forEach(function (v) {
    var rows = [v.target + ' ' + v.from.version + ' (' + v.from.column + ') \\u2192 ' + v.to.version + ' (' + v.to.column + '): ' +
      v.regressed.length + ' regressed, ' + (v.failing_differently || []).length + ' failing differently, ' + v.fixed.length + ' fixed, ' + v.changed.length + ' changed, ' + v.not_checked.length + ' not checked, ' + v.unchanged + ' unchanged'];
    [['regressed', v.regressed], ['failing differently', v.failing_differently || []], ['fixed', v.fixed], ['changed', v.changed], ['not checked', v.not_checked]].forEach(function (k) {
      k[1].forEach(function (c) { rows.push('  ' + k[0] + ' ' + c.cell_id + ': ' + c.before + ' \\u2192 ' + c.after); });
    });
    table.parentNode.parentNode.appendChild(h('pre', { class: 'version-changes', text: rows.join('\\n') }));
  });

  function applyFilters() {
    var t = fTarget.value, v = fVerdict.value, onlyFailing = fFailing.checked, q = fText.value.toLowerCase(), g = fGroup.value;
    buttons.forEach(function (b) {
      var hide = (t && colOf(b.r) !== t) || (v && shown(b.r) !== v) || (onlyFailing && !counts(b.r)) || (fGate && gateOf(b.r) !== fGate) || (q && b.r.scenario.toLowerCase().indexOf(q) < 0) || (g && groupsOf(b.r).indexOf(g) < 0);
      b.el.classList.toggle('hidden', Boolean(hide));
    });
    table.querySelectorAll('[data-column]').forEach(function (el) { el.classList.toggle('hidden', Boolean(t) && el.getAttribute('data-column') !== t); });
    body.querySelectorAll('tr[data-scenario]').forEach(function (row) { row.classList.toggle('hidden', !row.querySelector('button.cell:not(.hidden)')); });
    chipEls.forEach(function (c) {
      var on = (c.kind === 'verdict' && v === c.value) || (c.kind === 'fails' && onlyFailing) || (c.kind === 'gate' && fGate === c.value);
      c.el.classList.toggle('active', on);
    });
  }
  [fTarget, fVerdict, fFailing, fGroup].forEach(function (el) { el.addEventListener('change', applyFilters); });
  fText.addEventListener('input', applyFilters);

  // compare: the cells that differ from the earlier run, each with both verdicts, each verdict opening that run's cell
  if (compare) {
    var cm = compare.model;
    var other = compare.other;
    var sec = document.getElementById('compare');
    sec.classList.remove('hidden');
    var kinds = Object.keys(cm.counts);
    // cells neither run checked, the same verdict on both sides: one count, not a matrix of them
    var foldedKeys = Object.keys(cm.folded || {});
    var foldedN = foldedKeys.reduce(function (n, k) { return n + cm.folded[k]; }, 0);
    var foldedNote = foldedN ? ', ' + foldedN + ' not checked in either run (' + foldedKeys.map(function (k) { return k.replace('->', '\\u2192') + ' ' + cm.folded[k]; }).join(', ') + ')' : '';
    sec.append(h('h2', { id: 'compare-title', text: 'compared with run ' + cm.earlier.run_id + ' (earlier) \\u2192 ' + cm.later.run_id + ' (this run): ' +
      kinds.map(function (k) { return cm.counts[k] + ' ' + k; }).join(', ') + ', ' + cm.unchanged + ' unchanged' + foldedNote + ' of ' + cm.common + ' cells in both' }));
    if (!cm.entries.length) sec.append(h('div', { class: 'meta', text: 'nothing changed: no cell of the ' + cm.common + ' in both runs changed verdict' }));
    else {
      var ct = h('table', { class: 'matrix', id: 'compare-matrix' });
      var chead = h('tr', null, h('th', { text: 'scenario' }));
      cm.columns.forEach(function (c) { chead.appendChild(h('th', { text: c })); });
      ct.appendChild(h('thead', null, chead));
      var cbody = h('tbody');
      Array.from(new Set(cm.entries.map(function (e) { return e.scenario; }))).forEach(function (sc) {
        var row = h('tr', null, h('td', { class: 'scenario', text: sc }));
        cm.columns.forEach(function (col) {
          var td = h('td');
          cm.entries.filter(function (e) { return e.scenario === sc && e.column === col; }).forEach(function (e) {
            var before = other.results.find(function (r) { return r.cell_id === (e.before_id || e.cell_id); });
            var after = report.results.find(function (r) { return r.cell_id === e.cell_id; });
            var b = h('button', { class: 'change ' + e.kind.replace(' ', '-'), 'data-cell-id': e.cell_id, 'data-kind': e.kind, title: e.reason || '', type: 'button',
              onclick: function () { if (after) select(after); else select(before, other.extras, cm.earlier.run_id); } },
              e.label + ': ' + (e.before || '\\u2014') + ' \\u2192 ' + (e.after || '\\u2014'), h('span', { class: 'kind', text: e.kind }));
            td.appendChild(b);
            if (before && after) td.appendChild(h('div', { class: 'meta' },
              h('a', { href: '#', 'data-side': 'before', onclick: function (ev) { ev.preventDefault(); select(before, other.extras, cm.earlier.run_id); } }, 'earlier'), ' \\u00b7 ',
              h('a', { href: '#', 'data-side': 'after', onclick: function (ev) { ev.preventDefault(); select(after); } }, 'this run')));
          });
          row.appendChild(td);
        });
        cbody.appendChild(row);
      });
      ct.appendChild(cbody);
      sec.appendChild(h('div', { class: 'matrix-wrap' }, ct));
    }
  }

  var STANDARD = ['name', 'kind', 'phase', 'outcome', 'passed', 'actual', 'expected', 'detail'];
  function kv(k, v) { return [h('div', { text: k }), h('pre', { text: show(v) })]; }

  // a cell of this run, or (from the comparison) of the earlier run, whose extras and id come along
  function select(r, fromExtras, fromRun, onLoad) {
    buttons.forEach(function (b) { b.el.classList.toggle('selected', b.r === r); });
    if (!fromRun && location.hash !== '#' + encodeURIComponent(r.cell_id)) history.replaceState(null, '', '#' + encodeURIComponent(r.cell_id));
    var x = (fromExtras || extras)[r.cell_id] || { calls: [], calls_omitted: 0, transcripts: [], evidence: { cell_dir: r.cell_dir, files: [] }, probes: [] };
    var d = document.getElementById('detail');
    d.replaceChildren();
    if (fromRun) d.append(h('div', { class: 'meta from-run', text: 'from the earlier run ' + fromRun }));
    d.append(
      h('h2', { class: counts(r) ? 'bad' : '' , text: r.cell_id }),
      h('div', { class: 'verdict' }, h('strong', { text: isCaught(r) ? 'caught (verdict detected: an assertion observed the violation)' : r.verdict }), ' \\u2014 ' + r.reason),
      h('div', { class: 'meta', text: (gateOf(r) && !fromRun ? gateOf(r) + ' \\u00b7 ' : '') + (counts(r) ? 'fails the run' : r.fails_run ? 'fails, accepted by the gate' : 'does not fail the run') + ' \\u00b7 ' + r.driver + ' driver \\u00b7 ' + r.duration_ms + ' ms' +
        (r.target_version ? ' \\u00b7 ' + r.target + ' version ' + r.target_version : '') +
        (r.defence ? ' \\u00b7 defence ' + r.defence + (r.claimed ? ' (claimed by the target)' : ' (not claimed)') : '') }));
    // why the cell exists: what its scenario checks and guards
    if (r.about) d.append(h('div', { class: 'about' }, h('div', { class: 'about-title', text: r.about.title }), h('div', { text: r.about.description }),
      guardsOf(r.about) ? h('div', { class: 'meta', text: 'guards: ' + guardsOf(r.about) }) : null));
    if (r.attempts) {
      d.append(h('h3', { text: 'attempts (' + r.attempts.length + ')' }));
      var at = h('table', { class: 'small attempts' }, h('tr', null, h('th', { text: '#' }), h('th', { text: 'verdict' }), h('th', { text: 'ms' }), h('th', { text: 'reason' }), h('th', { text: 'evidence' })));
      r.attempts.forEach(function (a, i) {
        at.appendChild(h('tr', { class: a.fails_run ? 'err' : '' }, h('td', { text: String(i + 1) }), h('td', { text: a.verdict }), h('td', { text: String(a.duration_ms) }), h('td', { text: a.reason }), h('td', { text: a.cell_dir })));
      });
      d.appendChild(at);
    }

    // the scenario's stages, each with its outcome in the words the scenario gives it
    var st = model.cells[r.cell_id] && model.cells[r.cell_id].stages;
    if (st && !fromExtras) {
      d.append(h('h3', { text: 'stages' }), h('div', { class: 'meta stages-line', text: st.map(function (x) { return x.label; }).join(', ') }));
      var stt = h('table', { class: 'small stages' }, h('tr', null, h('th', { text: 'stage' }), h('th', { text: 'outcome' }), h('th', { text: 'reads' }), h('th', { text: 'assertions' })));
      st.forEach(function (x) {
        stt.appendChild(h('tr', { class: x.outcome === 'pass' ? '' : 'err', 'data-stage': x.name, 'data-outcome': x.outcome },
          h('td', { text: x.name }), h('td', { text: x.outcome + (x.total > 1 ? ' (' + x.passed + ' of ' + x.total + ' pass)' : '') }), h('td', { text: x.label }), h('td', { text: x.assertions.join('; ') })));
      });
      d.appendChild(stt);
    }
    if (r.taxonomy && r.taxonomy.length) d.append(h('div', { class: 'meta', text: 'risk: ' + r.taxonomy.join(', ') + (r.tags ? ' \\u00b7 tags: ' + r.tags.join(', ') : '') }));

    d.append(h('h3', { text: 'assertions' }));
    var firstFailing = null;
    r.assertions.forEach(function (a) {
      var bad = a.outcome === 'fail' || a.outcome === 'error';
      var klass = 'assertion' + (bad ? (isCaught(r) && a.outcome === 'fail' ? ' caught' : ' failing') : '');
      var mark = a.outcome === 'pass' ? '\\u2713' : bad ? (isCaught(r) && a.outcome === 'fail' ? 'caught' : '\\u2717') : a.outcome;
      var box = h('div', { class: klass, 'data-outcome': a.outcome },
        h('div', null, h('strong', { text: mark + ' ' + a.name }), ' ', h('span', { class: 'meta', text: a.kind + ' \\u00b7 phase ' + a.phase })),
        h.apply(null, ['div', { class: 'kv' }].concat(kv('actual', a.actual), kv('expected', a.expected), kv('detail', a.detail),
          // whatever else a judge recorded (reasoning, score, cost) is shown as it is
          Object.keys(a).filter(function (k) { return STANDARD.indexOf(k) < 0 && a[k] != null; }).reduce(function (acc, k) { return acc.concat(kv(k, a[k])); }, []))));
      d.appendChild(box);
      if (bad && !firstFailing) firstFailing = box;
    });
    if (!r.assertions.length) d.appendChild(h('div', { class: 'meta', text: 'no assertions were judged' }));

    var probes = x.probes || [];
    d.append(h('h3', { text: 'recall probes (' + probes.length + ')' }));
    if (x.probes_note) d.appendChild(h('div', { class: 'meta', text: x.probes_note }));
    else if (!probes.length) d.appendChild(h('div', { class: 'meta', text: 'no assertion of this cell reads a recall' }));
    probes.forEach(function (p) {
      var bad = p.is_error || p.unreadable;
      var pt = h('table', { class: 'small probe' }, h('tr', null, h('th', { text: 'rank' }), h('th', { text: 'content' })));
      p.items.forEach(function (it) { pt.appendChild(h('tr', null, h('td', { text: String(it.rank) }), h('td', null, h('pre', { text: it.content })))); });
      var box = h('details', { class: 'probe' + (bad ? ' err' : '') },
        h('summary', { text: '"' + p.query + '": ' + p.items.length + ' item(s), ' + p.ms + ' ms' + (p.is_error ? ', refused or failed' : '') + (p.unreadable ? ', unreadable: ' + p.unreadable : '') }),
        pt, h('div', { class: 'meta', text: 'raw result text' }), h('pre', { text: p.result_text || '(nothing)' }));
      // a probe no judge could read is opened: the assertions over it are errors
      if (bad) box.open = true;
      d.appendChild(box);
    });

    d.append(h('h3', { text: 'steps' }));
    var st = h('table', { class: 'small' }, h('tr', null, h('th', { text: '#' }), h('th', { text: 'stage' }), h('th', { text: 'op' }), h('th', { text: 'tools' }), h('th', { text: 'ok' }), h('th', { text: 'ms' }), h('th', { text: 'note / result' })));
    r.steps.forEach(function (p) {
      st.appendChild(h('tr', { class: p.ok ? '' : 'err' }, h('td', { text: String(p.index) }), h('td', { text: p.stage }), h('td', { text: p.op }), h('td', { text: p.tools.join(', ') }),
        h('td', { text: p.ok ? 'yes' : 'no' }), h('td', { text: String(p.ms) }), h('td', { text: [p.note, p.result].filter(Boolean).join(' \\u2014 ') })));
    });
    d.appendChild(st);

    d.append(h('h3', { text: 'calls log (' + x.calls.length + (x.calls_omitted ? ' shown, ' + x.calls_omitted + ' more in calls.jsonl' : '') + ')' }));
    var ct = h('table', { class: 'small calls' }, h('tr', null, h('th', { text: 'seq' }), h('th', { text: 'session' }), h('th', { text: 'op / tool' }), h('th', { text: 'arguments' }), h('th', { text: 'result' })));
    x.calls.forEach(function (c) {
      ct.appendChild(h('tr', { class: c.is_error ? 'err' : '' }, h('td', { text: String(c.seq) }), h('td', { text: String(c.session) + ' ' + (c.stage || '') }),
        h('td', { text: c.method && c.method !== 'tools/call' ? c.method : (c.op ? c.op + ' / ' : '') + (c.tool || '') }), h('td', null, h('pre', { text: c.arguments || '' })), h('td', null, h('pre', { text: c.result_text || '' }))));
    });
    d.appendChild(ct);

    if (r.agent) {
      d.append(h('h3', { text: 'agent' }), h('div', { text: r.agent.agent + ' ' + r.agent.agent_version + ', model ' + r.agent.model + (r.agent.scripted ? ' (scripted, policy ' + r.agent.policy + ')' : '') +
        ', tokens in ' + r.agent.usage.input + ' out ' + r.agent.usage.output + (r.agent.usage.cost_usd != null ? ', $' + r.agent.usage.cost_usd : '') }));
      // the agent's spend per prompt, as the evidence's agent_usage table has it ("-": not reported)
      var none = function (v) { return v == null ? '-' : String(v); };
      var ut = h('table', { class: 'small usage' }, h.apply(null, ['tr', null].concat(['session', 'prompt', 'tokens in', 'tokens out', 'cache read', 'cost $', 'model requests', 'tool calls', 'memory calls', 'finish', 'ms'].map(function (t) { return h('th', { text: t }); }))));
      r.agent.turns.forEach(function (tu) {
        var u = tu.usage, reported = u.input + u.output + u.cache_read + u.cache_write > 0;
        ut.appendChild(h.apply(null, ['tr', { class: tu.invalid.length ? 'err' : '' }].concat([tu.session, tu.prompt, reported ? u.input : null, reported ? u.output : null, reported ? u.cache_read : null, u.cost_usd, tu.model_requests, tu.tool_calls.length, tu.memory_calls, tu.finish_reason, Math.round(tu.ms)].map(function (v) { return h('td', { text: none(v) }); }))));
      });
      d.appendChild(ut);
      if (r.agent.usage_estimated) d.appendChild(h('div', { class: 'meta', text: 'token counts are the scripted model\u2019s estimates' }));
      r.agent.turns.forEach(function (tu) {
        d.append(h('div', { class: 'meta', text: 'session ' + tu.session + ' prompt ' + tu.prompt + ': exit ' + tu.exit_code + ', ' + tu.ms + ' ms, tools ' + tu.tool_calls.map(function (c) { return c.tool + (c.ok ? '' : ' (refused)'); }).join(', ') +
          (tu.invalid.length ? ', invalid: ' + tu.invalid.join('; ') : '') }), h('pre', { text: tu.final_text }));
      });
    }
    if (x.transcripts.length) {
      d.append(h('h3', { text: 'transcripts and logs' }));
      x.transcripts.forEach(function (tr) { d.append(h('details', null, h('summary', { text: tr.name }), h('pre', { text: tr.text }))); });
    }
    if (r.stderr_tail) d.append(h('h3', { text: 'server stderr (tail)' }), h('pre', { text: r.stderr_tail }));
    d.append(h('h3', { text: 'warnings' }));
    if (r.warnings.length) {
      var ul = h('ul', { class: 'warnings' });
      var seen = {};
      r.warnings.forEach(function (w) { seen[w] = (seen[w] || 0) + 1; });
      Object.keys(seen).forEach(function (w) { ul.appendChild(h('li', null, seen[w] > 1 ? h('span', { class: 'count', text: '\\u00d7' + seen[w] + ' ' }) : null, w)); });
      d.appendChild(ul);
    }
    else d.appendChild(h('div', { class: 'meta', text: 'none' }));
    d.append(h('h3', { text: 'evidence' }), h('div', { class: 'meta', text: 'fixture: ' + r.fixture }));
    var ev = h('ul', { class: 'evidence' });
    x.evidence.files.forEach(function (f) { ev.appendChild(h('li', null, h('code', { text: f }))); });
    d.append(ev, h('div', { class: 'meta', text: 'open it: memeval sql <run-dir' + (fromRun ? ' of ' + fromRun : '') + '> ' + r.cell_id }));
    if (firstFailing) {
      firstFailing.setAttribute('data-focus', 'true');
      // the page opens at its top (header, summary, chips); a cell picked later shows its failure
      if (!onLoad) firstFailing.scrollIntoView({ block: 'nearest' });
    }
  }

  var wanted = decodeURIComponent(location.hash.slice(1));
  var start = report.results.find(function (r) { return r.cell_id === wanted; }) || report.results.find(counts) || report.results.find(function (r) { return r.fails_run; });
  if (start) select(start, undefined, undefined, true);
  else document.getElementById('detail').textContent = report.results.length ? 'Select a cell.' : 'This run has no cells' + (report.reason ? ': ' + report.reason : '.');
})();
`;
