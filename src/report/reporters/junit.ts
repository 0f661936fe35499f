import { join } from 'node:path';
import type { CellResult, Report } from '../../core/results.js';
import { cellStages } from '../../core/stages.js';
import { nothingChecked } from '../report.js';
import { writeFileAtomic } from '../write.js';
import { aboutText, failingAssertions, isCaught, oneLine } from './explain.js';
import type { Reporter } from './types.js';

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
/** Escape for XML 1.0: control characters other than tab/newline are not allowed at all, even escaped. */
export function xmlEscape(s: string): string {
  /* eslint-disable no-control-regex -- a block, not next-line: the formatter may wrap this chain */
  return s
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '\ufffd')
    .replace(/[&<>"']/g, (c) => XML_ESCAPES[c]);
  /* eslint-enable no-control-regex */
}

const attrs = (a: Record<string, string | number | undefined>) =>
  Object.entries(a)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}="${xmlEscape(String(v))}"`)
    .join('');

const seconds = (ms: number) => (ms / 1000).toFixed(3);

/**
 * A testcase's properties: its scenario's tags and the published risks they map to (`taxonomy`,
 * e.g. OWASP-ASI06), and each stage the cell's assertions name (`stage.<name>`: outcome and words).
 */
function caseProperties(r: CellResult): string {
  const props = [
    ...(r.tags ?? []).map((t) => ['tag', t]),
    ...(r.taxonomy ?? []).map((t) => ['taxonomy', t]),
    ...cellStages(r.assertions).map((st) => [`stage.${st.name}`, `${st.outcome}: ${st.label}`]),
  ];
  return props.length
    ? `<properties>${props.map(([name, value]) => `<property${attrs({ name, value })}/>`).join('')}</properties>`
    : '';
}

function caseBody(r: CellResult): string {
  const why = aboutText(r.about, 1000);
  const details = [
    `verdict: ${r.verdict}`,
    `reason: ${r.reason}`,
    ...(why ? [`why: ${why}`] : []),
    ...r.assertions.map(
      (a) =>
        `${a.outcome === 'pass' ? 'ok' : isCaught(r) && a.outcome === 'fail' ? 'caught' : a.outcome}  ${a.name}: actual ${oneLine(a.actual)}, expected ${oneLine(a.expected)}`,
    ),
    `cell dir: ${r.cell_dir}`,
  ].join('\n');
  const out = `<system-out>${xmlEscape(details)}</system-out>`;
  if (r.verdict === 'skipped') return `<skipped${attrs({ message: 'the run was interrupted before this cell ran' })}/>`;
  if (r.verdict === 'unsupported') return `<skipped${attrs({ message: r.reason })}/>${out}`;
  // Surefire's form for a test that passed only on a rerun: each failed attempt, kept apart from failures
  if (r.verdict === 'flaky' && !r.fails_run)
    return (
      (r.attempts ?? [])
        .filter((a) => a.fails_run)
        .map(
          (a) =>
            `<flakyFailure${attrs({ message: oneLine(a.reason, 500), type: a.verdict })}>${xmlEscape(`${a.reason}\ncell dir: ${a.cell_dir}`)}</flakyFailure>`,
        )
        .join('') + out
    );
  if (!r.fails_run) return out;
  const failed = failingAssertions(r);
  const message = oneLine(r.reason, 500);
  const text = [
    r.reason,
    ...(why ? [`why: ${why}`] : []),
    ...failed.map((a) => `${a.name}: actual ${oneLine(a.actual)}, expected ${oneLine(a.expected)}`),
    ...(r.stderr_tail ? ['stderr:', r.stderr_tail] : []),
  ].join('\n');
  // error/invalid: the harness or the target broke; the rest: the target did the wrong thing
  const tag = r.verdict === 'error' || r.verdict === 'invalid' ? 'error' : 'failure';
  return `<${tag}${attrs({ message, type: r.verdict })}>${xmlEscape(text)}</${tag}>${out}`;
}

/** One testsuite per scenario, one testcase per scenario × target × phase (the shape GitHub and GitLab read). */
export function renderJunit(report: Report, scenarioFiles: Record<string, string> = {}): string {
  const byScenario = new Map<string, CellResult[]>();
  for (const r of report.results) byScenario.set(r.scenario, [...(byScenario.get(r.scenario) ?? []), r]);
  const count = (rs: CellResult[]) => ({
    tests: rs.length,
    failures: rs.filter((r) => r.fails_run && r.verdict !== 'error' && r.verdict !== 'invalid').length,
    errors: rs.filter((r) => r.fails_run && (r.verdict === 'error' || r.verdict === 'invalid')).length,
    skipped: rs.filter((r) => r.verdict === 'skipped' || r.verdict === 'unsupported').length,
    time: seconds(rs.reduce((n, r) => n + r.duration_ms, 0)),
  });
  const suites = [...byScenario].map(([scenario, rs]) => {
    const cases = rs.map(
      (r) =>
        `    <testcase${attrs({
          name: `${r.target} ${r.phase}${r.agent ? ` ${r.agent.agent} #${r.agent.repeat}` : ''}`,
          classname: `memeval.${scenario}`,
          time: seconds(r.duration_ms),
          file: scenarioFiles[scenario],
        })}>${caseProperties(r)}${caseBody(r)}</testcase>`,
    );
    return `  <testsuite${attrs({ name: scenario, ...count(rs), timestamp: report.started_at.replace(/\.\d+Z$/, '').replace(/Z$/, '') })}>\n${cases.join('\n')}\n  </testsuite>`;
  });
  // a run that checked nothing must not read as green to a test-report action that sees only skips
  const nothing = report.status === 'completed' ? nothingChecked(report.results) : undefined;
  if (nothing) {
    const runCase = `    <testcase${attrs({ name: 'run', classname: 'memeval', time: '0.000' })}><error${attrs({ message: nothing, type: 'nothing-checked' })}>${xmlEscape(nothing)}</error></testcase>`;
    suites.push(
      `  <testsuite${attrs({ name: 'memeval', tests: 1, failures: 0, errors: 1, skipped: 0, time: '0.000' })}>\n${runCase}\n  </testsuite>`,
    );
  }
  const all = count(report.results);
  const totals = nothing ? { ...all, tests: all.tests + 1, errors: all.errors + 1 } : all;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites${attrs({ name: `memeval ${report.run_id}`, ...totals })}>\n${suites.join('\n')}\n</testsuites>\n`;
}

export const junit: Reporter = {
  write(report, ctx) {
    const file = join(ctx.runDir, 'junit.xml');
    writeFileAtomic(file, renderJunit(report, ctx.scenarioFiles));
    return [file];
  },
};
