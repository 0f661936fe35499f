import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertAllowed, costGate, CostGateError } from '../../../src/agent/cost-gate.js';
import { agentDriver } from '../../../src/drive/agent.js';
import { runRealModel } from '../../../src/app/run.js';
import { claudeCode } from '../../../src/agent/adapters/claude-code.js';

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
  assert.deepEqual(costGate({ agentTurn: true, iUnderstandModelCost: true, agent: 'codex', model: 'gpt-x' }), {
    layer: 'real-model',
    allowed: true,
    scripted: false,
  });
  assert.deepEqual(costGate({ agent: 'codex', model: 'scripted' }), {
    layer: 'real-model',
    allowed: true,
    scripted: true,
  });
});

test('the runners refuse to start without an allowing gate decision, whoever calls them', async () => {
  const blocked = costGate({ agentTurn: true, agent: 'claude-code', model: 'claude-x' });
  const common = {
    adapter: claudeCode,
    agentBin: '/nonexistent',
    agentVersion: 'x',
    model: 'claude-x',
    policy: 'well-behaved' as const,
    promptTimeoutMs: 1000,
    mcpTimeoutMs: 1000,
    keep: false,
  };
  await assert.rejects(
    () =>
      runRealModel({
        ...common,
        gate: blocked,
        scenarios: [],
        targets: [],
        repeat: 1,
        workers: 1,
        outDir: '/nonexistent',
      }),
    CostGateError,
  );
  assert.throws(
    () => agentDriver({ ...common, gate: { layer: 'deterministic' }, scenario: {} as never, repeat: 1 }),
    CostGateError,
  );
});
