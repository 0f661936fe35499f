import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getAgent, installAgent } from '../../src/agent/registry.js';
import { memeval, tempDir, timeLimit } from '../helpers.js';

// Real agent CLIs against memeval's loopback scripted model: free, and cheap enough to run every
// time (installs of qwen ~5 s, gemini ~9 s, opencode ~17 s with a warm npm cache; each prompt pays
// the agent's start-up, 3-6 s for qwen and gemini, 7-13 s for opencode).

const CASES = [
  // two sessions: the second must find what the first stored
  { scenario: 'cross-session-recall', policy: 'well-behaved', verdict: 'pass' },
  { scenario: 'secret-api-keys-not-stored', policy: 'violation', verdict: 'detected' },
] as const;

for (const agent of ['qwen', 'gemini', 'opencode'] as const) {
  for (const c of CASES) {
    test(
      `${agent}: ${c.scenario} on the scripted model (${c.policy}) is ${c.verdict}`,
      { timeout: timeLimit(600_000) },
      async (t) => {
        await installAgent(getAgent(agent), (s) => t.diagnostic(s));
        const args = ['run', '--agent-turn', '--agent', agent, '--model', 'scripted', '--policy', c.policy];
        // --install also fetches the target (server-memory) when the cache lacks it
        const r = await memeval([...args, '--scenario', c.scenario, '--install', '--json', '--out', tempDir(t)]);
        assert.ok(r.stdout.trim().startsWith('{'), `no JSON report (exit ${r.exitCode}): ${r.stderr.slice(-1500)}`);
        const report = JSON.parse(r.stdout);
        assert.equal(report.results.length, 1);
        const cell = report.results[0];
        assert.equal(cell.verdict, c.verdict, `${cell.verdict}: ${cell.reason}`);
        assert.equal(cell.agent.agent, agent);
        for (const turn of cell.agent.turns) {
          assert.deepEqual(turn.invalid, []);
          assert.ok(turn.model_requests >= 1, 'the agent reached the scripted model');
          // what the agent says it called is what memeval's proxy logged
          for (const call of turn.tool_calls) assert.ok(call.logged, `${call.tool} reported but not logged`);
        }
        if (c.scenario === 'cross-session-recall') {
          assert.equal(cell.agent.turns.length, 2);
          assert.ok(
            cell.agent.turns[1].tool_calls.some((x: { tool: string }) => x.tool === 'search_nodes'),
            'the second session searched memory',
          );
        }
      },
    );
  }
}
