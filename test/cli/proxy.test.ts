import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { storeFailureOutcome } from '../../src/cell/cell.js';
import { pinStore } from '../../src/cell/store-sql.js';
import { proxiesSettled, proxyPinsLost, proxyStoreFailure, writeLaunchFile } from '../../src/mcp/proxy.js';
import { writePins } from '../../src/mcp/store-pins.js';
import { FAULTY } from '../faulty.js';
import { memevalArgv, ROOT, tempDir, timeLimit } from '../helpers.js';

test('mcp-proxy forwards a real server and logs every tools/call with its result', async (t) => {
  const dir = tempDir(t);
  const log = join(dir, 'calls.jsonl');
  const server = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-memory', 'dist', 'index.js');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...memevalArgv(), 'mcp-proxy', '--log', log, '--session', '3', '--', process.execPath, server],
    env: { PATH: process.env.PATH ?? '', MEMORY_FILE_PATH: join(dir, 'memory.jsonl') },
    cwd: ROOT,
  });
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(transport);
  const tools = await client.listTools();
  assert.ok(
    tools.tools.some((x) => x.name === 'create_entities'),
    'the real server answers through the proxy',
  );
  await client.callTool({
    name: 'create_entities',
    arguments: { entities: [{ name: 'user', entityType: 'person', observations: ['likes tea'] }] },
  });
  const found = await client.callTool({ name: 'search_nodes', arguments: { query: 'tea' } });
  assert.match(JSON.stringify(found.content), /likes tea/);
  const bad = await client.callTool({
    name: 'add_observations',
    arguments: { observations: [{ entityName: 'nobody', contents: ['x'] }] },
  });
  assert.equal(bad.isError, true);
  await client.close();

  const all = readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  // the handshake is logged too: a cell can tell a server that never offered its tools
  assert.equal(all[0].method, 'initialize');
  assert.match(all[0].result_text, /memory/);
  const list = all.find((r) => r.method === 'tools/list');
  assert.match(list.result_text, /create_entities/);
  const records = all.filter((r) => r.method === 'tools/call');
  assert.deepEqual(
    records.map((r) => r.tool),
    ['create_entities', 'search_nodes', 'add_observations'],
  );
  assert.ok(records.every((r) => r.session === 3 && r.stage === 'agent' && typeof r.ms === 'number'));
  assert.deepEqual(records[0].arguments.entities[0].observations, ['likes tea']);
  assert.match(records[1].result_text, /likes tea/);
  assert.equal(records[2].is_error, true);
  assert.match(readFileSync(join(dir, 'memory.jsonl'), 'utf8'), /likes tea/);
});

/** Start the fault server behind the proxy from a launch file, as an agent cell does; list its tools; stop it. */
let proxiedRuns = 0;
async function proxied(dir: string, fault: string, storeFailure: string[] | undefined) {
  const n = ++proxiedRuns;
  const log = join(dir, `calls-${n}.jsonl`);
  const launch = join(dir, `launch-${n}.json`);
  writeLaunchFile(launch, {
    command: process.execPath,
    args: [FAULTY],
    env: { PATH: process.env.PATH ?? '', FAULT: fault, STORE: join(dir, 'store.jsonl') },
    cwd: dir,
    ...(storeFailure ? { store_failure: storeFailure } : {}),
  });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...memevalArgv(), 'mcp-proxy', '--log', log, '--session', 'auto', '--launch', launch],
    cwd: ROOT,
    stderr: 'pipe',
  });
  let agentSaw = '';
  transport.stderr?.on('data', (c: Buffer) => (agentSaw += c.toString('utf8')));
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(transport);
  const tools = await client.listTools();
  await client.close();
  // the proxy notes how its server ended once it has: the cell waits so too
  await proxiesSettled(log, timeLimit(20_000));
  return { log, tools: tools.tools.map((x) => x.name), agentSaw: () => agentSaw };
}

test('mcp-proxy watches its server for a store that could not be opened: noted for the cell, which is then error', async (t) => {
  const dir = tempDir(t);
  const passed = { verdict: 'pass' as const, reason: 'every assertion held' };

  // a built-in pattern on stderr (the line split over two writes), with no declared pattern
  const stderr = await proxied(dir, 'store-fallback:stderr', undefined);
  assert.deepEqual(stderr.tools, ['save', 'search'], 'the server still answers: it fell back and carried on');
  assert.match(
    proxyStoreFailure(stderr.log) ?? '',
    /^the agent's server session 1 stderr: Error: Could not locate the bindings file\. Tried:/,
  );
  // the agent still sees the server's stderr, as before the proxy followed it
  assert.match(stderr.agentSaw(), /Could not locate the bindings file/);
  const out = storeFailureOutcome(passed, undefined, stderr.log);
  assert.equal(out.verdict, 'error');
  assert.match(
    out.reason,
    /the target's store could not be opened: the agent's server session 1 stderr: Error: Could not locate/,
  );

  // a declared pattern (server.store_failure, through the launch file) on a stdout line that is not JSON-RPC
  const stdout = await proxied(dir, 'store-fallback:stdout', ['falling back to in-memory']);
  assert.match(
    proxyStoreFailure(stdout.log) ?? '',
    /session 1 stdout: \[faulty\] cannot open store\.db, falling back to in-memory storage/,
  );

  // the same line without the declared pattern is only noise; a healthy server notes nothing
  for (const [fault, patterns] of [
    ['store-fallback:stdout', undefined],
    ['ok', ['falling back to in-memory']],
  ] as const) {
    const quiet = await proxied(dir, fault, patterns ? [...patterns] : undefined);
    assert.equal(proxyStoreFailure(quiet.log), undefined, fault);
    assert.equal(storeFailureOutcome(passed, undefined, quiet.log).verdict, 'pass');
  }
});

test("mcp-proxy checks setup.store_sql's pins when its server starts: a server that rebuilds its store undoes them, noted for the cell", async (t) => {
  const dir = tempDir(t);
  const hostile = join(ROOT, 'eval', 'hostile', 'hostile.mjs');
  /** one agent session: the hostile server behind the proxy, one call, stopped */
  const session = async (mode: string, store: string, call?: { name: string; arguments: Record<string, unknown> }) => {
    const n = ++proxiedRuns;
    const log = join(dir, `calls-${n}.jsonl`);
    const launch = join(dir, `launch-${n}.json`);
    const pins = join(dir, `pins-${mode}.json`);
    writeLaunchFile(launch, {
      command: process.execPath,
      args: [hostile],
      env: { PATH: process.env.PATH ?? '', HOSTILE: mode, STORE: store },
      cwd: dir,
      ...(existsSync(pins) ? { pins } : {}),
    });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...memevalArgv(), 'mcp-proxy', '--log', log, '--session', 'auto', '--launch', launch],
      cwd: ROOT,
    });
    const client = new Client({ name: 'test-agent', version: '1.0.0' });
    await client.connect(transport);
    if (call) await client.callTool(call);
    await client.close();
    await proxiesSettled(log, timeLimit(20_000));
    return log;
  };
  for (const mode of ['rebuild-at-start', 'honest']) {
    const store = join(dir, `${mode}.db`);
    // setup: a memory stored through the server, then pinned with the server stopped, as a cell does
    await session(mode, store, { name: 'remember', arguments: { text: 'The team deploys billing with blue green' } });
    const pinned = pinStore(store, [
      { sql: "UPDATE memories SET trust = 0.95 WHERE text LIKE 'The team deploys%'", expect_rows: 1 },
    ]);
    assert.equal(pinned.problem, undefined);
    writePins(join(dir, `pins-${mode}.json`), { store, rows: pinned.pins! });
    // the phase: the agent starts the server again through the proxy
    const log = await session(mode, store);
    if (mode === 'honest') assert.equal(proxyPinsLost(log), undefined);
    else
      assert.match(
        proxyPinsLost(log) ?? '',
        /^setup\.store_sql: the agent's server session 1 undid the pins of setup\.store_sql\[0\] when it started.*memories row id = 'mem-0001': trust is 0\.5, pinned 0\.95/,
      );
  }
});
