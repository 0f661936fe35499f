import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadScenarios, scenarioFiles } from '../../src/scenario/loader.ts';
import { getAgent, installAgent } from '../../src/agent/registry.ts';
import { faultyTargetWithout } from '../faulty.ts';
import { memeval, ROOT, tempDir, timeLimit } from '../helpers.ts';

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
  const report = JSON.parse(r.stdout);
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
    await installAgent(getAgent('codex'), (s) => t.diagnostic(s));
    const out = tempDir(t);
    const r = await memeval(
      [
        'run',
        '--agent-turn',
        '--agent',
        'codex',
        '--model',
        'scripted',
        '--scenario',
        'tentative-preference-not-stored',
        '--out',
        out,
      ],
      { timeout: timeLimit(480_000) },
    );
    assert.match(
      r.stdout + r.stderr,
      /tokens: \d+ in, \d+ out over 1 agent cell\(s\) \(estimated by the scripted model\), cost not reported by the agent/,
    );
    const [runId] = readdirSync(out);
    const report = JSON.parse(readFileSync(join(out, runId, 'report.json'), 'utf8'));
    assert.ok(report.usage_total.input > 0 && report.usage_total.output > 0);
    assert.equal(report.usage_total.estimated, true);
    assert.equal(report.usage_total.cost_usd, null);
    assert.equal(report.results[0].agent.usage_estimated, true);
    assert.equal(report.results[0].agent.usage.cost_usd, null);
  },
);

test(
  '--repeat on a target lacking an op the scenario needs: no pass rate, no pass^N, exit 1',
  { timeout: timeLimit(300_000) },
  async (t) => {
    await installAgent(getAgent('claude-code'), (s) => t.diagnostic(s));
    const dir = tempDir(t);
    const target = faultyTargetWithout(dir, 'no-remember', ['remember']);
    const out = join(dir, 'runs');
    const r = await memeval([
      'run',
      '--agent-turn',
      '--agent',
      'claude-code',
      '--model',
      'scripted',
      '--repeat',
      '3',
      '--scenario',
      'tentative-preference-not-stored',
      '--target',
      target,
      '--out',
      out,
    ]);
    const stdout = String(r.stdout);
    assert.equal(r.exitCode, 1, stdout + r.stderr);
    // the repeats table names the agent of each row
    assert.match(
      stdout,
      /tentative-preference-not-stored \[no-remember\] claude-code +0 +– +no +\[0\.00, 1\.00\] +3 not run/,
    );
    assert.doesNotMatch(stdout, /100%|\byes\b/);
    const report = JSON.parse(readFileSync(join(out, readdirSync(out)[0], 'report.json'), 'utf8'));
    assert.deepEqual(
      report.repeats.map((s: Record<string, unknown>) => [s.runs, s.passed, s.pass_rate, s.pass_all, s.not_run]),
      [[0, 0, null, false, 3]],
    );
  },
);
