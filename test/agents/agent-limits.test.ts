import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import JSON5 from 'json5';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AGENT_NAMES } from '../../src/agent/types.ts';
import { agentRun, fakeKeys, type AgentRunOptions } from '../agent-kit.ts';
import { ROOT } from '../helpers.ts';
import { tempDir, timeLimit, type Decl } from '../kit.ts';

// Limits are enforced for every agent, and a cell that hits one is invalid, never judged.

const aScenario = (id: string, body: Decl): Decl => ({ schema_version: 1, id, title: 't', description: 'd', ...body });

/** One agent run with up to 10 minutes to end; the cell's verdict is the test's. */
const runOne = (t: Parameters<typeof agentRun>[0], agent: string, o: AgentRunOptions) =>
  agentRun(t, agent, { ...o, spawn: { timeout: timeLimit(600_000) } });

for (const agent of AGENT_NAMES) {
  test(
    `${agent}: a prompt that needs more turns than --max-turns makes the cell invalid`,
    { timeout: timeLimit(600_000) },
    async (t) => {
      const manyCalls = aScenario('many-calls', {
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
      const { report } = await runOne(t, agent, { scenarios: [manyCalls], config: { agent: { maxTurns: 2 } } });
      const cell = report.results[0];
      assert.equal(cell.verdict, 'invalid', `${cell.verdict}: ${cell.reason}`);
      assert.match(cell.reason ?? '', /max (session )?turns/i);
    },
  );
}

for (const agent of AGENT_NAMES) {
  test(
    `${agent}: a refused key (401) and a dead base URL each end the cell as invalid within 30 s`,
    { timeout: timeLimit(600_000) },
    async (t) => {
      const keys = fakeKeys(agent, 'sk-revoked-key');
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
      // port 2: privileged, served by nothing here and not on fetch's list of blocked ports (1 is), so
      // it stays refused; a port freed by closing a server can be taken by another test's server on a
      // loaded machine before the agent connects
      const deadPort = 2;
      const cases = [
        {
          name: '401',
          url: `http://127.0.0.1:${(refuse.address() as AddressInfo).port}`,
          reason: /refused the API key \(HTTP 401\)/,
        },
        { name: 'dead base URL', url: `http://127.0.0.1:${deadPort}`, reason: /unreachable \(ECONNREFUSED\)/ },
      ];
      for (const c of cases) {
        const { report, ms } = await runOne(t, agent, {
          model: 'test-model',
          baseUrl: c.url,
          config: { scenarioIds: ['tentative-preference-not-stored'] },
          env: keys,
        });
        const cell = report.results[0];
        t.diagnostic(`${agent} ${c.name}: invalid after ${Math.round(ms)} ms (whole memeval run)`);
        assert.equal(cell.verdict, 'invalid', `${c.name}: ${cell.verdict} ${cell.reason}`);
        assert.match(cell.reason ?? '', c.reason);
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
    const { report } = await runOne(t, agent, {
      targets: [slowTarget(tempDir(t), 10_000)],
      config: { scenarioIds: ['tentative-preference-not-stored'] },
    });
    const cell = report.results[0];
    assert.equal(cell.verdict, 'pass', `${cell.verdict}: ${cell.reason}`);
  });
}

test(
  'claude-code: a server slower than --mcp-timeout is invalid, and the reason names the limit',
  { timeout: timeLimit(600_000) },
  async (t) => {
    const { report } = await runOne(t, 'claude-code', {
      targets: [slowTarget(tempDir(t), 10_000)],
      config: { scenarioIds: ['tentative-preference-not-stored'], agent: { mcpTimeoutMs: 2000 } },
    });
    const cell = report.results[0];
    assert.equal(cell.verdict, 'invalid', `${cell.verdict}: ${cell.reason}`);
    assert.match(cell.reason ?? '', /--mcp-timeout 2000 ms/);
  },
);
