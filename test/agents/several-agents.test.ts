import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getAgent, installAgent } from '../../src/agent/registry.ts';
import type { Report } from '../../src/core/results.ts';
import { gate } from '../../src/report/gate.ts';
import { memeval, tempDir, timeLimit } from '../helpers.ts';
import { assertFailingCellsVisible, openBrowser, shootAtWidths } from '../view-shots.ts';

const AGENTS = ['claude-code', 'codex'];
const SCENARIOS = ['cross-session-recall', 'secret-api-keys-not-stored'];

test(
  '--agent claude-code,codex: each scenario through both agents in one run; an agents × scenarios matrix in the console, report and page; sql, diff, rejudge and gate take each agent apart',
  { timeout: timeLimit(600_000) },
  async (t) => {
    for (const a of AGENTS) await installAgent(getAgent(a), (s) => t.diagnostic(s));
    const out = tempDir(t);
    const r = await memeval(
      [
        'run',
        '--agent-turn',
        '--agent',
        AGENTS.join(','),
        '--model',
        'scripted',
        '--scenario',
        SCENARIOS.join(','),
        '--out',
        out,
      ],
      { timeout: timeLimit(480_000) },
    );
    const stdout = String(r.stdout);
    assert.equal(r.exitCode, 0, stdout + r.stderr);
    const [runId] = readdirSync(out);
    const runDir = join(out, runId);
    const report = JSON.parse(readFileSync(join(runDir, 'report.json'), 'utf8')) as Report;

    // every scenario × agent, ids naming the agent
    assert.deepEqual(
      report.results.map((c) => c.cell_id).sort(),
      SCENARIOS.flatMap((s) => AGENTS.map((a) => `${s}/server-memory/real-model/${a}-1`)).sort(),
    );
    for (const c of report.results) assert.equal(c.agent?.agent, /real-model\/(.+)-1$/.exec(c.cell_id)![1]);
    assert.equal(report.options.agent, 'claude-code,codex');
    assert.deepEqual(
      report.options.agents?.map((a) => a.name),
      AGENTS,
    );
    // the matrix has a column per agent, never one column folding both
    assert.deepEqual(report.matrix.targets, ['server-memory · claude-code', 'server-memory · codex']);
    assert.deepEqual(report.matrix.agents, {
      'server-memory · claude-code': 'claude-code',
      'server-memory · codex': 'codex',
    });
    for (const row of report.matrix.rows) assert.equal(Object.keys(row.cells).length, 2);
    assert.match(stdout, /scenario\s+server-memory · claude-code\s+server-memory · codex/);
    // usage and the cost decision are the run's: one total over both agents' cells
    assert.equal(report.usage_total?.cells, 4);

    // sql: each id opens its own agent's cell
    for (const a of AGENTS) {
      const q = await memeval([
        'sql',
        runDir,
        `cross-session-recall/server-memory/real-model/${a}-1`,
        'SELECT count(*) AS n FROM calls',
        '--json',
      ]);
      assert.equal(q.exitCode, 0, q.stderr);
      assert.ok(JSON.parse(String(q.stdout))[0].n > 0);
    }
    // diff against itself: every cell matched, none folded
    const d = await memeval(['diff', runDir, runDir, '--json']);
    assert.equal(d.exitCode, 0, d.stderr);
    assert.equal(JSON.parse(String(d.stdout)).unchanged, 4);
    // rejudge: the same two columns
    const rj = await memeval(['rejudge', runDir]);
    assert.equal(rj.exitCode, 0, String(rj.stdout) + rj.stderr);
    assert.match(String(rj.stdout), /server-memory · claude-code\s+server-memory · codex/);
    // the gate: an expected failure names its agent; one for an agent the run did not drive matches nothing
    const entry = (agent: string) => ({
      scenario: 'cross-session-recall',
      target: 'server-memory',
      phase: 'real-model' as const,
      agent,
      verdict: 'fail' as const,
      assertions: ['x'],
      reason: 'r',
    });
    const g = gate(report, { expected: [entry('codex'), entry('gemini')] });
    assert.deepEqual(
      g.unmatched_expected?.map((u) => u.entry),
      ['cross-session-recall/server-memory/real-model (gemini)'],
    );
    assert.deepEqual(
      g.not_checked.concat(g.unexpected_passes).map((c) => c.cell_id),
      ['cross-session-recall/server-memory/real-model/codex-1'],
    );

    // the page: a column per agent, each cell named by its agent and repeat
    const v = await memeval(['view', runDir]);
    assert.equal(v.exitCode, 0, v.stderr);
    const b = await openBrowser(t);
    await shootAtWidths(b, String(v.stdout).trim(), 'two-agents', async (tab) => {
      assert.deepEqual(await tab.locator('#matrix thead th .agent').allInnerTexts(), [
        'agent claude-code',
        'agent codex',
      ]);
      const labels = await tab.locator('#matrix button.cell').allInnerTexts();
      assert.ok(labels.includes('claude-code #1: pass') && labels.includes('codex #1: pass'), labels.join(' | '));
      assert.match(await tab.locator('#meta').innerText(), /agents: claude-code, codex/);
      assert.equal(await assertFailingCellsVisible(tab, 'two agents'), 0);
    });
    assert.deepEqual(b.problems, []);
  },
);
