/**
 * The HTML report's style and script, inlined into the one file so that it works from
 * file:// with no network. The script builds the DOM with textContent only: report data
 * (scenario text, tool results) is never parsed as HTML.
 */
export const PAGE_CSS = `
:root { --fail: #b3261e; --ok: #1b7f3b; --caught: #0b6e99; --warn: #8a6100; --muted: #666; --line: #ddd; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #1d1d1f; background: #fafafa; }
header { padding: 12px 20px; background: #fff; border-bottom: 1px solid var(--line); }
header h1 { font-size: 18px; margin: 0 0 4px; }
.meta { color: var(--muted); font-size: 12px; }
.bad { color: var(--fail); } .good { color: var(--ok); }
main { display: grid; grid-template-columns: minmax(420px, 1fr) minmax(420px, 1.2fr); gap: 16px; padding: 16px 20px; }
.filters { display: flex; gap: 10px; flex-wrap: wrap; align-items: center; margin-bottom: 10px; }
.filters label { font-size: 12px; color: var(--muted); }
table.matrix { border-collapse: collapse; background: #fff; width: 100%; }
.matrix th, .matrix td { border: 1px solid var(--line); padding: 4px 6px; text-align: left; vertical-align: top; }
.matrix th { background: #f2f2f2; font-weight: 600; font-size: 12px; }
.matrix td.scenario { font-family: ui-monospace, monospace; font-size: 12px; }
button.cell { display: block; width: 100%; margin: 1px 0; padding: 2px 6px; border: 1px solid var(--line); border-radius: 4px; background: #fff; cursor: pointer; text-align: left; font: 12px ui-monospace, monospace; }
button.cell.fails { background: #fdecea; border-color: var(--fail); color: var(--fail); font-weight: 600; }
button.cell.caught { color: var(--caught); }
button.cell.ok { color: var(--ok); }
button.cell.neutral { color: var(--warn); }
button.cell.flaky { color: var(--warn); border-style: dashed; font-weight: 600; }
button.cell.selected { outline: 2px solid #333; }
tr.totals td { font-size: 12px; color: var(--muted); }
#detail { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 12px 16px; min-height: 200px; overflow-wrap: anywhere; }
#detail h2 { font-size: 16px; margin: 0 0 6px; }
#detail h3 { font-size: 13px; margin: 14px 0 4px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
.assertion { border: 1px solid var(--line); border-radius: 4px; padding: 6px 8px; margin: 4px 0; }
.assertion.failing { border-color: var(--fail); background: #fdecea; }
.assertion.caught { border-color: var(--caught); background: #e8f4fa; }
.assertion .kv { display: grid; grid-template-columns: 80px 1fr; gap: 2px 8px; font-size: 12px; }
pre { white-space: pre-wrap; font: 12px/1.35 ui-monospace, monospace; background: #f6f6f6; padding: 6px; border-radius: 4px; margin: 2px 0; max-height: 320px; overflow: auto; }
table.small { border-collapse: collapse; width: 100%; font-size: 12px; }
table.small td, table.small th { border-bottom: 1px solid var(--line); padding: 2px 4px; text-align: left; vertical-align: top; }
.err { color: var(--fail); }
ul.warnings li { color: var(--warn); }
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
  function isCaught(r) { return r.phase === 'violation' && r.verdict === 'detected' && !r.fails_run; }
  function cls(r) {
    if (r.fails_run) return 'fails';
    if (isCaught(r)) return 'caught';
    if (r.verdict === 'flaky') return 'flaky';
    if (r.verdict === 'pass' || r.verdict === 'defended') return 'ok';
    return 'neutral';
  }

  // header
  var s = report.summary;
  var ok = s.exit_code === 0 && report.status === 'completed';
  // unsupported and skipped cells checked nothing: counted apart, never among the passed
  var apart = (s.unsupported ? ', ' + s.unsupported + ' unsupported' : '') + (s.skipped ? ', ' + s.skipped + ' skipped' : '');
  var nothing = s.checked === 0 && report.status === 'completed' ? ' \\u2014 nothing was checked' : '';
  // a run without its report (still running, or cut off): its counts are of the finished cells only
  var live = report.live;
  var pending = live ? live.pending : [];
  document.getElementById('title').textContent = live
    ? 'memeval ' + live.state + ': ' + live.finished + ' of ' + live.planned + ' cells finished \\u2014 so far ' + s.passed + ' passed, ' + s.failed + ' failed' + apart
    : 'memeval ' + (ok ? '\\u2713 ' : '\\u2717 ') + s.passed + ' passed, ' + s.failed + ' failed' + apart + ' (' + s.cells + ' cells)' + nothing;
  document.getElementById('title').className = live ? (s.failed ? 'bad' : '') : ok ? 'good' : 'bad';
  document.getElementById('meta').textContent = 'run ' + report.run_id + ' \\u00b7 ' + report.layer + ' layer \\u00b7 status ' + report.status +
    ' \\u00b7 memeval ' + report.memeval_version + ' \\u00b7 ' + report.started_at + ' \\u2192 ' + report.ended_at +
    ' \\u00b7 targets: ' + report.targets.map(function (t) { return t.name + ' ' + t.version; }).join(', ');

  var targets = report.matrix.targets.length ? report.matrix.targets : Array.from(new Set(report.results.map(function (r) { return r.target; })));
  var scenarios = Array.from(new Set(report.results.concat(pending).map(function (r) { return r.scenario; })));
  var verdicts = Array.from(new Set(report.results.map(function (r) { return r.verdict; })));

  // filters
  var fTarget = h('select', { id: 'filter-target' }, h('option', { value: '', text: 'all targets' }));
  targets.forEach(function (t) { fTarget.appendChild(h('option', { value: t, text: t })); });
  var fVerdict = h('select', { id: 'filter-verdict' }, h('option', { value: '', text: 'all verdicts' }));
  verdicts.forEach(function (v) { fVerdict.appendChild(h('option', { value: v, text: v })); });
  var fFailing = h('input', { type: 'checkbox', id: 'filter-failing' });
  var fText = h('input', { type: 'search', id: 'filter-text', placeholder: 'scenario contains…' });
  document.getElementById('filters').append(
    h('label', null, 'target ', fTarget), h('label', null, 'verdict ', fVerdict),
    h('label', null, fFailing, ' only cells that fail the run'), h('label', null, fText));

  // matrix: one row per scenario, one column per target, one button per cell (phase)
  var table = document.getElementById('matrix');
  var head = h('tr', null, h('th', { text: 'scenario' }));
  // several versions of one target side by side: each column says its version
  var versions = report.matrix.versions || {};
  targets.forEach(function (t) {
    head.appendChild(versions[t] ? h('th', { 'data-target': t }, t, h('div', { class: 'meta', text: 'version ' + versions[t] })) : h('th', { 'data-target': t, text: t }));
  });
  table.appendChild(h('thead', null, head));
  var body = h('tbody');
  var buttons = [];
  scenarios.forEach(function (sc) {
    var row = h('tr', { 'data-scenario': sc }, h('td', { class: 'scenario', text: sc }));
    targets.forEach(function (t) {
      var td = h('td', { 'data-target': t });
      report.results.filter(function (r) { return r.scenario === sc && r.target === t; }).forEach(function (r) {
        var label = r.phase + (r.agent ? ' #' + r.agent.repeat : r.repeat ? ' #' + r.repeat : '') + ': ' + (isCaught(r) ? 'caught (detected)' : r.verdict) + (r.fails_run ? ' !' : '');
        var b = h('button', { class: 'cell ' + cls(r), 'data-cell-id': r.cell_id, 'data-verdict': r.verdict, 'data-fails': String(r.fails_run), title: r.reason, text: label,
          onclick: function () { select(r); } });
        buttons.push({ el: b, r: r });
        td.appendChild(b);
      });
      // not finished yet: no verdict, so no button to a detail
      pending.filter(function (p) { return p.scenario === sc && p.target === t; }).forEach(function (p) {
        td.appendChild(h('span', { class: 'cell pending', 'data-cell-id': p.cell_id, text: p.phase + (p.repeat ? ' #' + p.repeat : '') + ': pending' }));
      });
      row.appendChild(td);
    });
    body.appendChild(row);
  });
  // flaky cells (passed only on a retry) are never passes: a column of their own when there are any
  var withFlaky = targets.some(function (t) { var x = report.matrix.totals[t]; return x && x.by_verdict.flaky; });
  var totals = h('tr', { class: 'totals' }, h('td', { text: 'passed / failed / unsupported' + (withFlaky ? ' / flaky' : '') }));
  targets.forEach(function (t) {
    var x = report.matrix.totals[t];
    var unsupported = x ? (x.unsupported != null ? x.unsupported : x.by_verdict.unsupported || 0) : 0;
    totals.appendChild(h('td', { 'data-target': t, text: x ? x.passed + ' / ' + x.failed + ' / ' + unsupported + (withFlaky ? ' / ' + (x.by_verdict.flaky || 0) : '') : '' }));
  });
  body.appendChild(totals);
  table.appendChild(body);
  // what changed from each version of a target to the next (older -> newer)
  (report.matrix.version_changes || []).forEach(function (v) {
    var rows = [v.target + ' ' + v.from.version + ' (' + v.from.column + ') \\u2192 ' + v.to.version + ' (' + v.to.column + '): ' +
      v.regressed.length + ' regressed, ' + v.fixed.length + ' fixed, ' + v.changed.length + ' changed, ' + v.not_checked.length + ' not checked, ' + v.unchanged + ' unchanged'];
    [['regressed', v.regressed], ['fixed', v.fixed], ['changed', v.changed], ['not checked', v.not_checked]].forEach(function (k) {
      k[1].forEach(function (c) { rows.push('  ' + k[0] + ' ' + c.cell_id + ': ' + c.before + ' \\u2192 ' + c.after); });
    });
    table.parentNode.appendChild(h('pre', { class: 'version-changes', text: rows.join('\\n') }));
  });

  function applyFilters() {
    var t = fTarget.value, v = fVerdict.value, onlyFailing = fFailing.checked, q = fText.value.toLowerCase();
    buttons.forEach(function (b) {
      var hide = (t && b.r.target !== t) || (v && b.r.verdict !== v) || (onlyFailing && !b.r.fails_run) || (q && b.r.scenario.toLowerCase().indexOf(q) < 0);
      b.el.classList.toggle('hidden', Boolean(hide));
    });
    table.querySelectorAll('[data-target]').forEach(function (el) { el.classList.toggle('hidden', Boolean(t) && el.getAttribute('data-target') !== t); });
    body.querySelectorAll('tr[data-scenario]').forEach(function (row) { row.classList.toggle('hidden', !row.querySelector('button.cell:not(.hidden)')); });
  }
  [fTarget, fVerdict, fFailing].forEach(function (el) { el.addEventListener('change', applyFilters); });
  fText.addEventListener('input', applyFilters);

  var STANDARD = ['name', 'kind', 'phase', 'outcome', 'passed', 'actual', 'expected', 'detail'];
  function kv(k, v) { return [h('div', { text: k }), h('pre', { text: show(v) })]; }

  function select(r) {
    buttons.forEach(function (b) { b.el.classList.toggle('selected', b.r === r); });
    if (location.hash !== '#' + encodeURIComponent(r.cell_id)) history.replaceState(null, '', '#' + encodeURIComponent(r.cell_id));
    var x = extras[r.cell_id] || { calls: [], calls_omitted: 0, transcripts: [], evidence: { cell_dir: r.cell_dir, files: [] }, probes: [] };
    var d = document.getElementById('detail');
    d.replaceChildren();
    d.append(
      h('h2', { class: r.fails_run ? 'bad' : '' , text: r.cell_id }),
      h('div', { class: 'verdict' }, h('strong', { text: isCaught(r) ? 'detected (the violation was caught)' : r.verdict }), ' \\u2014 ' + r.reason),
      h('div', { class: 'meta', text: (r.fails_run ? 'fails the run' : 'does not fail the run') + ' \\u00b7 ' + r.driver + ' driver \\u00b7 ' + r.duration_ms + ' ms' +
        (r.target_version ? ' \\u00b7 ' + r.target + ' version ' + r.target_version : '') +
        (r.defence ? ' \\u00b7 defence ' + r.defence + (r.claimed ? ' (claimed by the target)' : ' (not claimed)') : '') }));
    if (r.attempts) {
      d.append(h('h3', { text: 'attempts (' + r.attempts.length + ')' }));
      var at = h('table', { class: 'small attempts' }, h('tr', null, h('th', { text: '#' }), h('th', { text: 'verdict' }), h('th', { text: 'ms' }), h('th', { text: 'reason' }), h('th', { text: 'evidence' })));
      r.attempts.forEach(function (a, i) {
        at.appendChild(h('tr', { class: a.fails_run ? 'err' : '' }, h('td', { text: String(i + 1) }), h('td', { text: a.verdict }), h('td', { text: String(a.duration_ms) }), h('td', { text: a.reason }), h('td', { text: a.cell_dir })));
      });
      d.appendChild(at);
    }

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
    if (r.warnings.length) { var ul = h('ul', { class: 'warnings' }); r.warnings.forEach(function (w) { ul.appendChild(h('li', { text: w })); }); d.appendChild(ul); }
    else d.appendChild(h('div', { class: 'meta', text: 'none' }));
    d.append(h('h3', { text: 'evidence' }), h('div', { class: 'meta', text: 'fixture: ' + r.fixture }));
    var ev = h('ul', { class: 'evidence' });
    x.evidence.files.forEach(function (f) { ev.appendChild(h('li', null, h('code', { text: f }))); });
    d.append(ev, h('div', { class: 'meta', text: 'open it: memeval sql <run-dir> ' + r.scenario + ' ' + r.target + ' ' + r.phase }));
    if (firstFailing) { firstFailing.scrollIntoView({ block: 'nearest' }); firstFailing.setAttribute('data-focus', 'true'); }
  }

  var runWarnings = document.getElementById('run-warnings');
  report.warnings.forEach(function (w) { runWarnings.appendChild(h('li', { text: w })); });

  var wanted = decodeURIComponent(location.hash.slice(1));
  var start = report.results.find(function (r) { return r.cell_id === wanted; }) || report.results.find(function (r) { return r.fails_run; });
  if (start) select(start);
  else document.getElementById('detail').textContent = report.results.length ? 'Select a cell.' : 'This run has no cells' + (report.reason ? ': ' + report.reason : '.');
})();
`;
