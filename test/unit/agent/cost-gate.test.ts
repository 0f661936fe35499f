import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertAllowed, costGate, CostGateError } from '../../../src/agent/cost-gate.js';
import { agentDriver } from '../../../src/drive/agent.js';
import { runRealModel } from '../../../src/app/run.js';
import { claudeCode } from '../../../src/agent/drivers/claude-code.js';
import { memeval, tempDir } from '../../helpers.js';

test('the gate: a real model needs both --agent-turn and --i-understand-model-cost; the scripted model needs neither', () => {
  assert.deepEqual(costGate({}), { layer: 'deterministic' });
  for (const flags of [
    { agentTurn: true, agent: 'claude-code', model: 'claude-x' },
    { iUnderstandModelCost: true, agent: 'claude-code', model: 'claude-x' },
    { agent: 'codex', model: 'gpt-x' },
    { model: 'gpt-x' },
    { agent: 'codex' },
    { agentTurn: true },
    { iUnderstandModelCost: true },
  ]) {
    const d = costGate(flags);
    assert.equal(d.layer, 'real-model', JSON.stringify(flags));
    assert.equal(d.layer === 'real-model' && d.allowed, false, JSON.stringify(flags));
    assert.throws(() => assertAllowed(d), CostGateError);
  }
  assert.deepEqual(costGate({ agentTurn: true, iUnderstandModelCost: true, agent: 'codex', model: 'gpt-x' }), { layer: 'real-model', allowed: true, scripted: false });
  assert.deepEqual(costGate({ agent: 'codex', model: 'scripted' }), { layer: 'real-model', allowed: true, scripted: true });
});

test('the runners refuse to start without an allowing gate decision, whoever calls them', async () => {
  const blocked = costGate({ agentTurn: true, agent: 'claude-code', model: 'claude-x' });
  const common = { driver: claudeCode, agentBin: '/nonexistent', agentVersion: 'x', model: 'claude-x', policy: 'well-behaved' as const, promptTimeoutMs: 1000, keep: false };
  await assert.rejects(() => runRealModel({ ...common, gate: blocked, scenarios: [], targets: [], repeat: 1, workers: 1, outDir: '/nonexistent' }), CostGateError);
  assert.throws(() => agentDriver({ ...common, gate: { layer: 'deterministic' }, scenario: {} as never, repeat: 1 }), CostGateError);
});

for (const [label, args] of [
  ['--agent-turn without the cost flag', ['--agent-turn', '--agent', 'claude-code', '--model', 'claude-sonnet-x']],
  ['the cost flag without --agent-turn', ['--i-understand-model-cost', '--agent', 'codex', '--model', 'gpt-x']],
  ['an agent and a model but neither flag', ['--agent', 'gemini', '--model', 'gemini-x', '--policy', 'violation', '--repeat', '3']],
  ['only --agent-turn', ['--agent-turn']],
  ['a model with --json', ['--model', 'gpt-x', '--agent', 'qwen', '--json']],
] as const) {
  test(`memeval run with ${label} writes a blocked report, exits 2, and spawns nothing`, async (t) => {
    const out = tempDir(t);
    const tmp = tempDir(t);
    const r = await memeval(['run', ...args, '--scenario', 'cross-session-recall', '--out', out], { env: { NO_COLOR: '1', TMPDIR: tmp, ANTHROPIC_API_KEY: 'sk-ant-must-not-leak' } });
    assert.equal(r.exitCode, 2, String(r.stderr));
    assert.match(String(r.stderr), /blocked: .*--i-understand-model-cost|blocked: .*--agent-turn/);
    const [runId] = readdirSync(out);
    const text = readFileSync(join(out, runId, 'report.json'), 'utf8');
    const report = JSON.parse(text);
    assert.equal(report.status, 'blocked');
    assert.match(report.reason, /--agent-turn and --i-understand-model-cost/);
    assert.deepEqual(report.scenarios, ['cross-session-recall']);
    assert.deepEqual(report.results, []);
    assert.doesNotMatch(text, /sk-ant-must-not-leak/);
    assert.deepEqual(readdirSync(tmp).filter((f) => f.startsWith('memeval-')), [], 'no fixture was made');
    if (args.includes('--json')) assert.equal(JSON.parse(String(r.stdout)).status, 'blocked');
  });
}
