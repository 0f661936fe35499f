import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { loadScenarios, scenarioFiles } from '../../src/scenario/loader.ts';
import { agentOf, agentRun } from '../agent-kit.ts';
import { faultyTargetWithout } from '../faulty.ts';
import { memeval, ROOT } from '../helpers.ts';
import { reportFromStdout, tempDir, timeLimit } from '../kit.ts';

test('a blocked run lists only the scenarios that would run (with real_model) and records --repeat', async (t) => {
  const r = await memeval([
    'run',
    '--agent-turn',
    '--agent',
    'claude-code',
    '--model',
    'claude-paid',
    '--repeat',
    '3',
    '--json',
    '--out',
    tempDir(t),
  ]);
  assert.equal(r.exitCode, 2);
  const report = reportFromStdout(r);
  assert.equal(report.status, 'blocked');
  const all = loadScenarios(scenarioFiles(join(ROOT, 'scenarios')));
  const withPrompts = all
    .filter((s) => s.scenario.real_model)
    .map((s) => s.scenario.id)
    .sort();
  assert.ok(withPrompts.length < all.length, 'some built-in scenarios have no real_model block');
  assert.deepEqual([...report.scenarios].sort(), withPrompts);
  assert.equal(report.options.repeat, 3);
});

test(
  'a run reports its token total, marked estimated with the scripted model, and no cost the agent did not report',
  { timeout: timeLimit(600_000) },
  async (t) => {
    const r = await agentRun(t, 'codex', { config: { scenarioIds: ['tentative-preference-not-stored'] } });
    assert.match(
      r.stdout + r.stderr,
      /tokens: \d+ in, \d+ out over 1 agent cell\(s\) \(estimated by the scripted model\), cost not reported by the agent/,
    );
    const { report } = r;
    const total = report.usage_total ?? assert.fail('the report has no usage_total');
    assert.ok(total.input > 0 && total.output > 0);
    assert.equal(total.estimated, true);
    assert.equal(total.cost_usd, null);
    assert.equal(agentOf(report.results[0]).usage_estimated, true);
    assert.equal(agentOf(report.results[0]).usage?.cost_usd, null);
  },
);

test(
  '--repeat on a target lacking an op the scenario needs: no pass rate, no pass^N, exit 1',
  { timeout: timeLimit(300_000) },
  async (t) => {
    const r = await agentRun(t, 'claude-code', {
      targets: [faultyTargetWithout(tempDir(t), 'no-remember', ['remember'])],
      config: { scenarioIds: ['tentative-preference-not-stored'], agent: { repeat: 3 } },
    });
    const stdout = String(r.stdout);
    assert.equal(r.exitCode, 1, stdout + r.stderr);
    // the repeats table names the agent of each row
    assert.match(
      stdout,
      /tentative-preference-not-stored \[no-remember\] claude-code +0 +– +no +\[0\.00, 1\.00\] +3 not run/,
    );
    assert.doesNotMatch(stdout, /100%|\byes\b/);
    assert.deepEqual(
      (r.report.repeats ?? assert.fail('the report has no repeats')).map((s) => [
        s.runs,
        s.passed,
        s.pass_rate,
        s.pass_all,
        s.not_run,
      ]),
      [[0, 0, null, false, 3]],
    );
  },
);
