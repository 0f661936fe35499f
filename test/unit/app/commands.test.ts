/**
 * Every command is usable from the API: each app/ function the CLI calls, called in process
 * over one real deterministic run (server-memory), with the results typed as the CLI reads them.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  agentStatus,
  calibrate,
  diffRuns,
  initProject,
  jsonSchemaFor,
  loadScenario,
  merge,
  queryCell,
  rejudge,
  run,
  targetStatus,
  writeRunPage,
  type Assertion,
  type Report,
  type Scenario,
  type Step,
  type TargetDecl,
} from '../../../src/index.js';
import { InputError } from '../../../src/util/errors.js';
import { scenario, writeJson } from '../../helpers.js';

const ROOT_TMP = mkdtempSync(join(tmpdir(), 'memeval-app-'));
after(() => rmSync(ROOT_TMP, { recursive: true, force: true }));

const LLM: Assertion = {
  kind: 'llm',
  name: 'no run noise',
  phase: 'both',
  check: 'no-such-fact',
  subject: 'memories',
  fact: 'transient run state',
  scripted: { verdict: 'pass' },
} as Assertion;
let runDir = '';
let source: Report;

before(async () => {
  const scenarios = join(ROOT_TMP, 'scenarios');
  mkdirSync(scenarios);
  writeJson(
    join(scenarios, 'app-api.json5'),
    scenario('app-api', { assertions: [...(scenario('x').assertions as object[]), LLM] }),
  );
  const r = await run({
    scenariosDir: scenarios,
    targets: ['server-memory'],
    workers: 1,
    outDir: join(ROOT_TMP, 'runs'),
    judge: { model: 'scripted' },
  });
  assert.equal(r.exitCode, 0, JSON.stringify(r.report.results.map((c) => [c.cell_id, c.verdict, c.reason])));
  runDir = join(ROOT_TMP, 'runs', r.report.run_id);
  source = r.report;
});

test('rejudge(): the same verdicts cell for cell, a new report beside the run; an aborted signal keeps every cell and says interrupted (130)', async () => {
  const r = await rejudge({ runDir, judgeModel: 'scripted' });
  if (r.blocked) return assert.fail(`blocked: ${r.reason}`);
  assert.equal(r.exitCode, 0);
  assert.deepEqual(
    r.report.results.map((c) => [c.cell_id, c.verdict]),
    source.results.map((c) => [c.cell_id, c.verdict]),
  );
  assert.equal(JSON.parse(readFileSync(r.reportPath, 'utf8')).rejudged_from.run_id, source.run_id);

  const abort = new AbortController();
  abort.abort();
  const stopped = await rejudge({
    runDir,
    judgeModel: 'scripted',
    signal: abort.signal,
    outDir: join(ROOT_TMP, 'rejudged'),
  });
  assert.equal(stopped.exitCode, 130);
  if (stopped.blocked) return assert.fail('not blocked');
  assert.equal(stopped.report.status, 'interrupted');
  assert.equal(JSON.parse(readFileSync(stopped.reportPath, 'utf8')).status, 'interrupted');
  for (const c of stopped.report.results as (Report['results'][number] & {
    rejudge: { rejudged: boolean; why: string };
  })[]) {
    assert.equal(c.rejudge.rejudged, false);
    assert.match(c.rejudge.why, /interrupted before this cell/);
  }
});

test('rejudge(): a judge off this machine without the cost flag writes a blocked report and exits 2', async () => {
  const r = await rejudge({ runDir, judgeModel: 'gpt-judge-x', outDir: join(ROOT_TMP, 'blocked') });
  assert.equal(r.blocked, true);
  assert.equal(r.exitCode, 2);
  assert.equal(JSON.parse(readFileSync(r.reportPath, 'utf8')).status, 'blocked');
});

test('calibrate(): figures over the labelled cases; aborted after the first judgment, the file says interrupted (130)', async () => {
  const cases = writeJson(join(ROOT_TMP, 'cases.json5'), {
    schema_version: 1,
    title: 'two cases',
    scripted: { verdict: 'pass', rules: [{ when: 'sk-live', verdict: 'fail' }] },
    cases: [
      { id: 'good', check: 'no-such-fact', fact: 'a credential', items: ['User prefers pnpm'], expected: 'pass' },
      { id: 'bad', check: 'no-such-fact', fact: 'a credential', items: ['api key sk-live-1234'], expected: 'fail' },
    ],
  });
  const r = await calibrate({ casesFile: cases, judgeModel: 'scripted', outDir: join(ROOT_TMP, 'cal') });
  if (r.status !== 'completed') return assert.fail(`calibrate ended ${r.status}`);
  assert.equal(r.exitCode, 0);
  assert.equal(r.result.overall.accuracy, 1);
  assert.equal(JSON.parse(readFileSync(r.file, 'utf8')).status, 'completed');

  const abort = new AbortController();
  const stopped = await calibrate({
    casesFile: cases,
    judgeModel: 'scripted',
    repeat: 2,
    outDir: join(ROOT_TMP, 'cal'),
    signal: abort.signal,
    onCase: () => abort.abort(),
  });
  if (stopped.status !== 'interrupted') return assert.fail(`calibrate ended ${stopped.status}`);
  assert.equal(stopped.exitCode, 130);
  assert.equal(stopped.result.judgments.length, 1);
  const written = JSON.parse(readFileSync(stopped.file, 'utf8'));
  assert.equal(written.status, 'interrupted');
  assert.equal(written.judgments.length, 1);

  await assert.rejects(
    calibrate({ casesFile: cases }),
    (e) => e instanceof InputError && /needs a judge model/.test(e.message),
  );
});

test('merge(): one complete run merges into a run of the same cells, with its HTML page', () => {
  const lines: string[] = [];
  const r = merge({ runDirs: [runDir], outDir: join(ROOT_TMP, 'merged'), log: (l) => lines.push(l) });
  assert.equal(r.exitCode, 0);
  assert.equal(r.parts, 1);
  assert.deepEqual(
    r.report.results.map((c) => c.cell_id),
    source.results.map((c) => c.cell_id).sort(),
  );
  assert.ok(existsSync(r.html) && existsSync(r.reportPath));
  assert.deepEqual(lines, [], 'no gate, no gate lines');
  assert.throws(() => merge({ runDirs: [runDir, runDir], outDir: join(ROOT_TMP, 'merged') }), InputError);
});

test('diffRuns(): a run against itself has no regression (exit 0)', () => {
  const { diff, exitCode } = diffRuns(runDir, join(runDir, 'report.json'));
  assert.equal(exitCode, 0);
  assert.deepEqual(diff.regressed, []);
});

test('writeRunPage() and queryCell(): the page of the latest run, rows from a cell; a write is refused', () => {
  const file = writeRunPage({ runsDir: join(ROOT_TMP, 'runs'), out: join(ROOT_TMP, 'page.html') });
  assert.equal(file, join(ROOT_TMP, 'page.html'));
  assert.match(readFileSync(file, 'utf8'), /app-api/);
  const rows = queryCell({
    runDir,
    scenario: 'app-api',
    target: 'server-memory',
    phase: 'well-behaved',
    query: 'SELECT content FROM memories',
  });
  assert.ok(
    rows.some((r) => String(r.content).includes('dark mode')),
    JSON.stringify(rows),
  );
  assert.throws(
    () =>
      queryCell({
        runDir,
        scenario: 'app-api',
        target: 'server-memory',
        phase: 'well-behaved',
        query: 'DELETE FROM calls',
      }),
    InputError,
  );
  assert.throws(
    () => queryCell({ runDir, scenario: 'app-apx', target: 'server-memory', phase: 'well-behaved' }),
    /did you mean "app-api\/server-memory\/well-behaved"/,
  );
});

test('initProject() and jsonSchemaFor(): the starter scenario loads, and init refuses to overwrite', () => {
  const dir = join(ROOT_TMP, 'project');
  const files = initProject(dir);
  const loaded: Scenario = loadScenario(files.scenario).scenario;
  const steps: Step[] = loaded.deterministic!.well_behaved;
  assert.equal(steps[0].op, 'remember');
  assert.deepEqual(JSON.parse(readFileSync(files.schema, 'utf8')), jsonSchemaFor('scenario'));
  assert.throws(() => initProject(dir), /exist already; add --force/);
  assert.deepEqual(initProject(dir, true), files);
});

test('targetStatus() and agentStatus(): every built-in target and agent with its pinned package', () => {
  const targets = targetStatus();
  const memory = targets.find((t) => t.name === 'server-memory');
  assert.ok(memory, targets.map((t) => t.name).join(', '));
  assert.match(memory.package, /^@modelcontextprotocol\/server-memory@/);
  const decl: Pick<TargetDecl, 'name'> = { name: memory.name };
  assert.equal(decl.name, 'server-memory');
  assert.ok(agentStatus().some((a) => a.name === 'claude-code' && /@/.test(a.package)));
});
