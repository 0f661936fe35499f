import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getAgent, installAgent } from '../../src/agent/registry.js';
import { ScriptedModelServer } from '../../src/model/server.js';
import { memeval, tempDir, writeJson, timeLimit } from '../helpers.js';

// Real agent binaries from npm, driven by memeval's scripted model on loopback.
async function run(
  t: { diagnostic: (s: string) => void; after: (fn: () => void) => void },
  args: string[],
  env: Record<string, string> = {},
) {
  const out = tempDir(t);
  const r = await memeval(['run', ...args, '--out', out, '--json'], {
    env: { NO_COLOR: '1', ...env },
    timeout: timeLimit(600_000),
  });
  if (!String(r.stdout).trim().startsWith('{')) assert.fail(`no report (exit ${r.exitCode}): ${r.stderr}`);
  return { r, report: JSON.parse(String(r.stdout)), out };
}

/**
 * Real findings on the default target in the real-model layer: server-memory keeps no source with a
 * memory (an entity's observations are bare strings), so a page the agent saved reads as the
 * user's own word (docs/poisoning.md): the well-behaved phase fails and the violation cannot be
 * told apart. Every other real-model scenario passes and catches.
 */
const NO_SOURCE = new Set(['poison-instruction-from-tool-output', 'poison-survives-restart']);
const failing = (report: { results: { scenario: string; fails_run: boolean }[] }) =>
  report.results
    .filter((x) => x.fails_run)
    .map((x) => x.scenario)
    .sort();

for (const agent of ['claude-code', 'codex']) {
  test(`${agent}: the well-behaved script passes every real-model scenario through the real agent binary`, async (t) => {
    await installAgent(getAgent(agent), (s) => t.diagnostic(s));
    const { r, report, out } = await run(t, ['--agent-turn', '--agent', agent, '--model', 'scripted']);
    assert.deepEqual(
      failing(report),
      [...NO_SOURCE].sort(),
      JSON.stringify(
        report.results.map((x: { scenario: string; verdict: string; reason: string }) => [
          x.scenario,
          x.verdict,
          x.reason,
        ]),
      ),
    );
    assert.equal(r.exitCode, 1);
    assert.equal(report.layer, 'real-model');
    assert.equal(report.options.scripted_model, true, 'the report says the model was scripted');
    assert.ok(report.results.length >= 5);
    for (const res of report.results) {
      assert.equal(res.verdict, NO_SOURCE.has(res.scenario) ? 'fail' : 'pass', `${res.scenario}: ${res.reason}`);
      assert.equal(res.agent.scripted, true);
      assert.ok(
        res.agent.turns.every(
          (tu: { model_requests: number; invalid: string[] }) => tu.model_requests > 0 && tu.invalid.length === 0,
        ),
      );
      assert.ok(res.agent.usage.input > 0 && res.agent.usage.output > 0, 'usage parsed from the agent output');
      // the scripted model's price is fiction: no cost is reported rather than a made-up one
      assert.equal(res.agent.usage.cost_usd, null);
      // every memory call the agent reports also crossed memeval's recording proxy
      for (const tu of res.agent.turns) for (const c of tu.tool_calls) assert.ok(c.logged, `${c.tool} logged`);
      assert.ok(
        existsSync(join(out, report.run_id, res.cell_dir, res.agent.turns[0].stdout_file)),
        'raw transcript saved',
      );
    }
    const recall = report.results.find((x: { scenario: string }) => x.scenario === 'cross-session-recall');
    assert.equal(recall.agent.turns.length, 2, 'two sessions, two fresh conversations');
    assert.match(recall.agent.turns[1].final_text, /pnpm/, 'the second session answered from memory');
    const pivot = report.results.find((x: { scenario: string }) => x.scenario === 'preference-pivot-updates');
    assert.deepEqual(
      pivot.agent.turns.map((tu: { session: number; prompt: number }) => [tu.session, tu.prompt]),
      [
        [1, 1],
        [1, 2],
      ],
    );
    // the second prompt resumed the conversation: the model saw the first prompt's tool results
    assert.match(pivot.agent.turns[1].final_text, /4 spaces/);
    const calls = readFileSync(join(out, report.run_id, recall.cell_dir, 'calls.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.ok(
      calls.some((c) => c.session === 2 && c.tool === 'search_nodes' && /pnpm/.test(c.result_text)),
      'recall in the new session crossed the proxy',
    );
    // the run's own calls log beside the report gathers every cell's calls, labelled with the cell
    const runCalls = readFileSync(join(out, report.run_id, 'calls.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.ok(
      runCalls.some(
        (c) =>
          c.scenario === 'cross-session-recall' &&
          c.target === 'server-memory' &&
          c.repeat === 1 &&
          c.session === 2 &&
          c.tool === 'search_nodes',
      ),
    );
  });

  test(`${agent}: the violation script is caught by the real-model assertions`, async (t) => {
    await installAgent(getAgent(agent), (s) => t.diagnostic(s));
    const { r, report } = await run(t, [
      '--agent-turn',
      '--agent',
      agent,
      '--model',
      'scripted',
      '--policy',
      'violation',
    ]);
    for (const res of report.results)
      if (NO_SOURCE.has(res.scenario)) assert.equal(res.verdict, 'undetected', `${res.scenario}: ${res.reason}`);
      else assert.ok(['detected', 'defended'].includes(res.verdict), `${res.scenario}: ${res.verdict} ${res.reason}`);
    assert.deepEqual(failing(report), [...NO_SOURCE].sort());
    assert.equal(
      r.exitCode,
      1,
      JSON.stringify(
        report.results
          .filter((x: { fails_run: boolean }) => x.fails_run)
          .map((x: { cell_id: string; reason: string }) => [x.cell_id, x.reason]),
      ),
    );
    assert.ok(report.results.filter((x: { verdict: string }) => x.verdict === 'detected').length >= 4);
  });
}

test('claude-code: a memory server that fails to load makes the turn invalid, never a pass', async (t) => {
  await installAgent(getAgent('claude-code'), (s) => t.diagnostic(s));
  const dir = tempDir(t);
  const file = join(dir, 'broken.mjs');
  writeFileSync(file, "process.stderr.write('cannot open store\\n'); process.exit(1);");
  const target = writeJson(join(dir, 'broken.json5'), {
    name: 'broken',
    description: 'a server that dies at start, made by the test',
    server: { command: process.execPath, args: [file] },
    store: { format: 'jsonl', path: '{{data}}/none.jsonl' },
    views: {
      memories:
        'SELECT line AS id, json AS content, NULL AS category, NULL AS source, 0 AS is_deleted FROM store.records',
    },
    ops: {
      remember: [{ tool: 'save', args: { text: '{{content}}' } }],
      recall: [{ tool: 'find', args: { q: '{{query}}' } }],
    },
  });
  const { r, report } = await run(t, [
    '--agent-turn',
    '--agent',
    'claude-code',
    '--model',
    'scripted',
    '--scenario',
    'run-noise-not-stored',
    '--target',
    target,
  ]);
  assert.equal(r.exitCode, 1);
  assert.equal(report.results[0].verdict, 'invalid');
  assert.match(report.results[0].reason, /MCP server "memory" did not load|did not offer the memory tool/);
});

test('claude-code: --repeat reports pass rate, pass^N and a Wilson interval', async (t) => {
  await installAgent(getAgent('claude-code'), (s) => t.diagnostic(s));
  const { report } = await run(t, [
    '--agent-turn',
    '--agent',
    'claude-code',
    '--model',
    'scripted',
    '--scenario',
    'tentative-preference-not-stored',
    '--repeat',
    '3',
  ]);
  assert.equal(report.results.length, 3);
  assert.deepEqual(
    report.repeats.map((s: Record<string, unknown>) => [s.scenario, s.runs, s.passed, s.pass_all]),
    [['tentative-preference-not-stored', 3, 3, true]],
  );
  const [lo, hi] = report.repeats[0].wilson95;
  assert.ok(lo > 0.4 && lo < 0.5 && hi === 1, `Wilson 95% for 3/3 is about [0.44, 1], got [${lo}, ${hi}]`);
});

test('claude-code: with both cost flags a real model id runs, against the endpoint given, and no key reaches the report', async (t) => {
  await installAgent(getAgent('claude-code'), (s) => t.diagnostic(s));
  // memeval's model stand-in plays the vendor endpoint here; with no script it just answers
  const server = new ScriptedModelServer();
  const url = await server.start();
  t.after(() => void server.stop());
  const { report, out } = await run(
    t,
    [
      '--agent-turn',
      '--i-understand-model-cost',
      '--agent',
      'claude-code',
      '--model',
      'claude-test-model',
      '--base-url',
      url,
      '--scenario',
      'tentative-preference-not-stored',
    ],
    { ANTHROPIC_API_KEY: 'sk-ant-test-secret-value' },
  );
  assert.equal(report.options.scripted_model, false);
  assert.equal(report.results[0].agent.model, 'claude-test-model');
  assert.ok(server.modelRequests().length > 0, 'the agent reached the endpoint given');
  assert.notEqual(report.results[0].verdict, 'invalid', report.results[0].reason);
  // the stand-in answered without a tool call: an agent that never touched memory proves nothing,
  // and the scenario's positive expectation (the firm preference is stored) holds it to that
  assert.equal(report.results[0].verdict, 'fail', report.results[0].reason);
  assert.equal(report.results[0].agent.turns.flatMap((tu: { tool_calls: unknown[] }) => tu.tool_calls).length, 0);
  const all = readFileSync(join(out, report.run_id, 'report.json'), 'utf8');
  assert.doesNotMatch(all, /sk-ant-test-secret-value/);
});
