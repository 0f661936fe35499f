import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { memevalArgv, ROOT, tempDir } from '../helpers.js';

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
