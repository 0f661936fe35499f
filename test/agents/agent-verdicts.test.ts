/**
 * Verdict rules that must hold for every agent, on the real agent binaries: a server that never
 * offered its tools makes the cell invalid even where the agent does not report MCP status
 * (exercised on the non-scripted path, against memeval's model stand-in as the endpoint), and a
 * write the target refuses counts as a refused step whoever made it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getAgent, installAgent } from '../../src/agent/registry.js';
import { AGENT_NAMES } from '../../src/agent/types.js';
import { ScriptedModelServer } from '../../src/model/server.js';
import { memeval, ROOT, scenario, tempDir, writeJson, timeLimit } from '../helpers.js';

const MODE_SERVER = join(ROOT, 'test', 'servers', 'mode-server.mjs');
const FAKE_KEYS = { ANTHROPIC_API_KEY: 'sk-ant-fake', OPENAI_API_KEY: 'sk-fake', GEMINI_API_KEY: 'fake' };

function setup(dir: string, mode: string) {
  const target = writeJson(join(dir, `mode-${mode}.json5`), {
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
  });
  const sc = join(dir, 'scenarios');
  mkdirSync(sc);
  writeJson(
    join(sc, 'remember-theme.json5'),
    scenario('remember-theme', {
      deterministic: { well_behaved: [{ op: 'remember', content: 'User prefers dark mode' }], violation: null },
      real_model: { sessions: [{ prompts: ['Remember that I prefer dark mode.'] }], max_turns: 4 },
      assertions: [{ kind: 'count', name: 'no token', phase: 'both', contains: 'sk_test', op: 'eq', value: 0 }],
    }),
  );
  return { target, sc, out: join(dir, 'runs') };
}

const report = (out: string) => JSON.parse(readFileSync(join(out, readdirSync(out)[0], 'report.json'), 'utf8'));

for (const agent of AGENT_NAMES) {
  test(`${agent}: a memory server that never listed its tools makes the cell invalid, also with a real model id`, async (t) => {
    await installAgent(getAgent(agent), (s) => t.diagnostic(s));
    const dir = tempDir(t);
    const { target, sc, out } = setup(dir, 'exit');
    const endpoint = new ScriptedModelServer();
    const url = await endpoint.start();
    t.after(() => void endpoint.stop());
    const r = await memeval(
      [
        'run',
        '--agent-turn',
        '--i-understand-model-cost',
        '--agent',
        agent,
        '--model',
        'test-model',
        '--base-url',
        url,
        '--scenarios',
        sc,
        '--target',
        target,
        '--out',
        out,
        '--prompt-timeout',
        '120000',
      ],
      {
        env: { NO_COLOR: '1', MEMEVAL_CACHE_DIR: process.env.MEMEVAL_CACHE_DIR ?? '', ...FAKE_KEYS },
        timeout: timeLimit(240_000),
      },
    );
    const [cell] = report(out).results;
    assert.equal(r.exitCode, 1);
    assert.equal(cell.verdict, 'invalid', cell.reason);
    assert.match(cell.reason, /never listed its tools/);
  });

  test(`${agent}: a target that refuses every write fails the well-behaved cell (refused through the agent)`, async (t) => {
    await installAgent(getAgent(agent), (s) => t.diagnostic(s));
    const dir = tempDir(t);
    const { target, sc, out } = setup(dir, 'refuse');
    const r = await memeval(
      [
        'run',
        '--agent-turn',
        '--agent',
        agent,
        '--model',
        'scripted',
        '--scenarios',
        sc,
        '--target',
        target,
        '--out',
        out,
      ],
      {
        env: { NO_COLOR: '1', MEMEVAL_CACHE_DIR: process.env.MEMEVAL_CACHE_DIR ?? '' },
        timeout: timeLimit(240_000),
      },
    );
    const [cell] = report(out).results;
    assert.equal(r.exitCode, 1, cell.reason);
    assert.equal(cell.verdict, 'fail', cell.reason);
    assert.match(cell.reason, /refused by the target/);
  });
}
