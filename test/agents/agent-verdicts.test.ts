/**
 * Verdict rules that must hold for every agent, on the real agent binaries: a server that never
 * offered its tools makes the cell invalid even where the agent does not report MCP status
 * (exercised on the non-scripted path, against memeval's model stand-in as the endpoint), and a
 * write the target refuses counts as a refused step whoever made it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { AGENT_NAMES } from '../../src/agent/types.js';
import { agentRun, modelEndpoint } from '../agent-kit.ts';
import { ROOT } from '../helpers.ts';
import { scenario, timeLimit, type Decl } from '../kit.ts';

const MODE_SERVER = join(ROOT, 'test', 'servers', 'mode-server.mjs');
const FAKE_KEYS = { ANTHROPIC_API_KEY: 'sk-ant-fake', OPENAI_API_KEY: 'sk-fake', GEMINI_API_KEY: 'fake' };

/** The mode server in `mode`, and a scenario whose prompt asks it to keep one preference. */
function setup(mode: string): { targets: Decl[]; scenarios: Decl[] } {
  const target = {
    name: `mode-${mode}`,
    description: `mode-server in ${mode} mode`,
    server: { command: process.execPath, args: [MODE_SERVER], env: { MODE: mode, STORE: '{{data}}/store.jsonl' } },
    store: { format: 'jsonl', path: '{{data}}/store.jsonl' },
    views: {
      memories:
        "SELECT line AS id, json_extract(json, '$.text') AS content, NULL AS category, NULL AS source, 0 AS is_deleted FROM store.records",
    },
    ops: {
      remember: [{ tool: 'save', args: { text: '{{content}}' } }],
      recall: [{ tool: 'search', args: { query: '{{query}}' } }],
    },
    recall_results: { json: '' },
  };
  const theme = scenario('remember-theme', {
    deterministic: { well_behaved: [{ op: 'remember', content: 'User prefers dark mode' }], violation: null },
    real_model: { sessions: [{ prompts: ['Remember that I prefer dark mode.'] }], max_turns: 4 },
    assertions: [{ kind: 'count', name: 'no token', phase: 'both', contains: 'sk_test', op: 'eq', value: 0 }],
  });
  return { targets: [target], scenarios: [theme] };
}

for (const agent of AGENT_NAMES) {
  test(`${agent}: a memory server that never listed its tools makes the cell invalid, also with a real model id`, async (t) => {
    const { url } = await modelEndpoint(t);
    const r = await agentRun(t, agent, {
      ...setup('exit'),
      model: 'test-model',
      baseUrl: url,
      config: { agent: { promptTimeoutMs: 120000 } },
      env: FAKE_KEYS,
      spawn: { timeout: timeLimit(240_000) },
    });
    const [cell] = r.results;
    assert.equal(r.exitCode, 1);
    assert.equal(cell.verdict, 'invalid', cell.reason);
    assert.match(cell.reason ?? '', /never listed its tools/);
  });

  test(`${agent}: a target that refuses every write fails the well-behaved cell (refused through the agent)`, async (t) => {
    const r = await agentRun(t, agent, { ...setup('refuse'), spawn: { timeout: timeLimit(240_000) } });
    const [cell] = r.results;
    assert.equal(r.exitCode, 1, cell.reason);
    assert.equal(cell.verdict, 'fail', cell.reason);
    assert.match(cell.reason ?? '', /refused by the target/);
  });
}
