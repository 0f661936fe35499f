import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import JSON5 from 'json5';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getAgent, installAgent } from '../../src/agent/registry.ts';
import { AGENT_NAMES } from '../../src/agent/types.ts';
import { memeval, ROOT, tempDir, timeLimit } from '../helpers.ts';

// Limits are enforced for every agent, and a cell that hits one is invalid, never judged.

function writeScenario(dir: string, id: string, body: Record<string, unknown>): string {
  const scenarios = join(dir, 'scenarios');
  mkdirSync(scenarios, { recursive: true });
  writeFileSync(
    join(scenarios, `${id}.json5`),
    JSON.stringify({ schema_version: 1, id, title: 't', description: 'd', ...body }),
  );
  return scenarios;
}

async function runOne(t: { after: (fn: () => void) => void }, args: string[], env: Record<string, string> = {}) {
  const dir = tempDir(t);
  const t0 = performance.now();
  const r = await memeval([...args, '--json', '--out', join(dir, 'out')], {
    env: { NO_COLOR: '1', ...env },
    timeout: timeLimit(600_000),
  });
  const ms = performance.now() - t0;
  assert.ok(r.stdout.trim().startsWith('{'), `no report (exit ${r.exitCode}): ${r.stderr.slice(-1500)}`);
  return { report: JSON.parse(r.stdout), ms, r };
}

for (const agent of AGENT_NAMES) {
  test(
    `${agent}: a prompt that needs more turns than --max-turns makes the cell invalid`,
    { timeout: timeLimit(600_000) },
    async (t) => {
      await installAgent(getAgent(agent), (s) => t.diagnostic(s));
      const scenarios = writeScenario(tempDir(t), 'many-calls', {
        deterministic: {
          well_behaved: [
            { op: 'remember', content: 'User likes tea' },
            { op: 'remember', content: 'User likes green tea' },
            { op: 'remember', content: 'User likes oolong tea' },
          ],
          violation: null,
        },
        real_model: { sessions: [{ prompts: ['Remember: I like tea, green tea and oolong tea.'] }], max_turns: 8 },
        assertions: [{ kind: 'count', name: 'teas', phase: 'both', contains: 'tea', op: 'eq', value: 3 }],
      });
      // server-memory's remember is two calls: six memory calls in one prompt against a cap of 2
      const { report } = await runOne(t, [
        'run',
        '--agent-turn',
        '--agent',
        agent,
        '--model',
        'scripted',
        '--scenarios',
        scenarios,
        '--max-turns',
        '2',
      ]);
      const cell = report.results[0];
      assert.equal(cell.verdict, 'invalid', `${cell.verdict}: ${cell.reason}`);
      assert.match(cell.reason, /max (session )?turns/i);
    },
  );
}

for (const agent of AGENT_NAMES) {
  test(
    `${agent}: a refused key (401) and a dead base URL each end the cell as invalid within 30 s`,
    { timeout: timeLimit(600_000) },
    async (t) => {
      const driver = getAgent(agent);
      await installAgent(driver, (s) => t.diagnostic(s));
      const keys = Object.fromEntries(driver.keyEnv.map((k) => [k, 'sk-revoked-key']));
      const refuse = createServer((_req, res) => {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            type: 'error',
            error: { type: 'authentication_error', code: 401, message: 'invalid api key' },
          }),
        );
      });
      await new Promise<void>((r) => refuse.listen(0, '127.0.0.1', r));
      t.after(() => refuse.close());
      const dead = createServer();
      await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
      const deadPort = (dead.address() as AddressInfo).port;
      await new Promise<void>((r) => dead.close(() => r()));
      const cases = [
        {
          name: '401',
          url: `http://127.0.0.1:${(refuse.address() as AddressInfo).port}`,
          reason: /refused the API key \(HTTP 401\)/,
        },
        { name: 'dead base URL', url: `http://127.0.0.1:${deadPort}`, reason: /unreachable \(ECONNREFUSED\)/ },
      ];
      for (const c of cases) {
        const { report, ms } = await runOne(
          t,
          [
            'run',
            '--agent-turn',
            '--i-understand-model-cost',
            '--agent',
            agent,
            '--model',
            'test-model',
            '--base-url',
            c.url,
            '--scenario',
            'tentative-preference-not-stored',
          ],
          keys,
        );
        const cell = report.results[0];
        t.diagnostic(`${agent} ${c.name}: invalid after ${Math.round(ms)} ms (whole memeval run)`);
        assert.equal(cell.verdict, 'invalid', `${c.name}: ${cell.verdict} ${cell.reason}`);
        assert.match(cell.reason, c.reason);
        assert.ok(ms < 30_000, `${c.name}: ${Math.round(ms)} ms`);
      }
    },
  );
}

/** server-memory behind a start-up delay: a slow server on a loaded machine. */
function slowTarget(dir: string, delayMs: number): string {
  const serverMemory = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-memory', 'dist', 'index.js');
  const script = join(dir, 'slow.mjs');
  writeFileSync(
    script,
    `await new Promise((r) => setTimeout(r, ${delayMs}));\nawait import(${JSON.stringify(serverMemory)});\n`,
  );
  const decl = JSON5.parse(readFileSync(join(ROOT, 'eval', 'targets', 'server-memory.json5'), 'utf8'));
  delete decl.package;
  decl.name = 'slow-memory';
  decl.description = `server-memory that starts ${delayMs} ms late, made by the test`;
  decl.server = { ...decl.server, command: process.execPath, args: [script] };
  const file = join(dir, 'slow-memory.json5');
  writeFileSync(file, JSON.stringify(decl));
  return file;
}

for (const agent of AGENT_NAMES) {
  test(`${agent}: waits for a memory server that takes 10 s to start`, { timeout: timeLimit(600_000) }, async (t) => {
    await installAgent(getAgent(agent), (s) => t.diagnostic(s));
    const target = slowTarget(tempDir(t), 10_000);
    const { report } = await runOne(t, [
      'run',
      '--agent-turn',
      '--agent',
      agent,
      '--model',
      'scripted',
      '--target',
      target,
      '--scenario',
      'tentative-preference-not-stored',
    ]);
    const cell = report.results[0];
    assert.equal(cell.verdict, 'pass', `${cell.verdict}: ${cell.reason}`);
  });
}

test(
  'claude-code: a server slower than --mcp-timeout is invalid, and the reason names the limit',
  { timeout: timeLimit(600_000) },
  async (t) => {
    await installAgent(getAgent('claude-code'), (s) => t.diagnostic(s));
    const target = slowTarget(tempDir(t), 10_000);
    const { report } = await runOne(t, [
      'run',
      '--agent-turn',
      '--agent',
      'claude-code',
      '--model',
      'scripted',
      '--target',
      target,
      '--scenario',
      'tentative-preference-not-stored',
      '--mcp-timeout',
      '2000',
    ]);
    const cell = report.results[0];
    assert.equal(cell.verdict, 'invalid', `${cell.verdict}: ${cell.reason}`);
    assert.match(cell.reason, /--mcp-timeout 2000 ms/);
  },
);
