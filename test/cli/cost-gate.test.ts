// The cost gate from the command line: a blocked run writes its report, exits 2 and starts
// nothing (the gate's decision itself is unit-tested in test/unit/agent/cost-gate.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { memeval, tempDir } from '../helpers.js';

for (const [label, args] of [
  ['--agent-turn without the cost flag', ['--agent-turn', '--agent', 'claude-code', '--model', 'claude-sonnet-x']],
  ['the cost flag without --agent-turn', ['--i-understand-model-cost', '--agent', 'codex', '--model', 'gpt-x']],
  [
    'an agent and a model but neither flag',
    ['--agent', 'gemini', '--model', 'gemini-x', '--policy', 'violation', '--repeat', '3'],
  ],
  ['only --agent-turn', ['--agent-turn']],
  ['a model with --json', ['--model', 'gpt-x', '--agent', 'qwen', '--json']],
] as const) {
  test(`memeval run with ${label} writes a blocked report, exits 2, and spawns nothing`, async (t) => {
    const out = tempDir(t);
    const tmp = tempDir(t);
    const r = await memeval(['run', ...args, '--scenario', 'cross-session-recall', '--out', out], {
      env: { NO_COLOR: '1', TMPDIR: tmp, ANTHROPIC_API_KEY: 'sk-ant-must-not-leak' },
    });
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
    assert.deepEqual(
      readdirSync(tmp).filter((f) => f.startsWith('memeval-')),
      [],
      'no fixture was made',
    );
    if ((args as readonly string[]).includes('--json')) assert.equal(JSON.parse(String(r.stdout)).status, 'blocked');
  });
}
