// `memeval targets new` through the real CLI: drafting a small SQLite server written for the test
// (test/servers/draft-memory) and the official server-memory (a dependency of memeval, so
// nothing is installed), then the draft must load and pass `targets check`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import JSON5 from 'json5';
import { memeval, ROOT, tempDir, timeLimit } from '../helpers.ts';

const SERVER = join(ROOT, 'test', 'servers', 'draft-memory');
const opts = { timeout: timeLimit(180_000) };

test(
  'targets new drafts the test server: ops by name and schema, the SQLite store, capture_id, recall format; check passes',
  opts,
  async (t) => {
    const out = join(tempDir(t), 'draft-memory.json5');
    const r = await memeval(['targets', 'new', SERVER, '--out', out]);
    const all = r.stdout + r.stderr;
    assert.equal(r.exitCode, 0, all);
    // progress while it works, then the check's points and what is left to decide
    assert.match(all, /4 tool\(s\):/);
    assert.match(all, /remember → remember /);
    assert.match(all, /the marker is in \{\{home\}\}\/\.draft-memory\/memories\.db \(sqlite\)/);
    assert.match(all, /remember a short memory "tabs \w+": accepted/);
    assert.match(all, /ok: all \d+ checked point\(s\) hold/);
    assert.match(all, /still to decide:\n {2}- claims: none declared/);
    assert.match(all, /ops\.update: no tool named like update/);
    const decl = JSON5.parse(readFileSync(out, 'utf8'));
    assert.equal(decl.ops.remember[0].tool, 'remember');
    assert.equal(decl.ops.remember[0].args.category, 'fact', 'a required enum gets one of its values');
    assert.equal(decl.ops.recall[0].tool, 'search_memories');
    assert.deepEqual(decl.ops.forget[0], { tool: 'delete_memory', args: { id: '{{memory.id|number}}' } });
    assert.equal(decl.ops.update, undefined);
    assert.deepEqual(decl.store, { format: 'sqlite', path: '{{home}}/.draft-memory/memories.db' });
    assert.match(decl.views.memories, /FROM store\."memories"/, 'the memories table, not the history beside it');
    assert.equal(decl.ops.remember[0].capture_id, '^Stored memory #(\\d+)');
    assert.deepEqual(decl.recall_results.empty, { text: 'No memories match "{{query}}".' });
    assert.deepEqual(decl.claims, []);
    // a package folder is a local target: its bins are declared as its own CLI, as an installed package's are
    assert.deepEqual(decl.cli, { 'draft-memory': { command: '{{node}}', args: [join(SERVER, 'server.mjs')] } });
    const v = await memeval(['validate', out]);
    assert.equal(v.exitCode, 0, v.stdout + v.stderr);
  },
);

test(
  'targets new drafts draft-lures: the tools about what remember stores, its own id, the memories table not the log; check passes',
  opts,
  async (t) => {
    // named as agent-orchestrator-mcp names them: delete_fact beside store_learning, an agentId first in
    // the answer, an activity log of every call (reads too) created before the learnings table
    const out = join(tempDir(t), 'draft-lures.json5');
    const r = await memeval(['targets', 'new', join(ROOT, 'test', 'servers', 'draft-lures'), '--out', out]);
    const all = r.stdout + r.stderr;
    assert.equal(r.exitCode, 0, all);
    const decl = JSON5.parse(readFileSync(out, 'utf8'));
    assert.equal(decl.ops.remember[0].tool, 'store_learning');
    assert.equal(decl.ops.remember[0].capture_id, '"id"\\s*:\\s*"?([^",}\\s]+)', "the learning's id, not agentId");
    assert.equal(decl.ops.recall[0].tool, 'search_learnings', 'not find_learnings, which lists everything');
    assert.equal(decl.ops.forget[0].tool, 'delete_learning', 'not delete_fact, nor delete_learnings (every learning)');
    assert.equal(decl.ops.update[0].tool, 'update_learning', 'not revise_learning, which appends');
    assert.match(decl.views.memories, /FROM store\."learnings"/, 'not the activity log');
    assert.match(all, /not the memories: activity \(it holds the recall queries too: a log of calls\)/);
    for (const subject of ['ops.remember ids', 'views.memories not a log', 'ops.forget scope', 'ops.update replaces'])
      assert.match(all, new RegExp(`✓ ${subject.replace(/\./g, '\\.')}:`), subject);
  },
);

test(
  'targets new: a draft that fails check is still written, exit 1, with the failing points in its header',
  opts,
  async (t) => {
    const out = join(tempDir(t), 'broken-delete.json5');
    const r = await memeval(['targets', 'new', SERVER, '--out', out, '--env', 'BROKEN_DELETE=1']);
    assert.equal(r.exitCode, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /✗ ops\.forget: accepted/);
    const text = readFileSync(out, 'utf8');
    assert.match(text, /^\/\/ targets check failed on these points:\n\/\/ {2}✗ ops\.forget/m);
    assert.equal(JSON5.parse(text).server.env.BROKEN_DELETE, '1');
  },
);

test('targets new: bad input is exit 3 before anything runs', async (t) => {
  const dir = tempDir(t);
  const existing = join(dir, 'draft-memory.json5');
  writeFileSync(existing, '// mine\n');
  const r = await memeval(['targets', 'new', SERVER, '--out', existing]);
  assert.equal(r.exitCode, 3, r.stdout + r.stderr);
  assert.match(r.stderr, /exists; pass --force/);
  assert.equal(readFileSync(existing, 'utf8'), '// mine\n', 'an existing file is not overwritten');
  const bad = await memeval(['targets', 'new', 'Not A Package!', '--out', join(dir, 'x.json5')]);
  assert.equal(bad.exitCode, 3);
  assert.match(bad.stderr, /is not an npm package name/);
  const clash = await memeval(['targets', 'new', SERVER, '--out', join(dir, 'a.json5'), '--name', 'b']);
  assert.equal(clash.exitCode, 3);
  assert.match(clash.stderr, /--name: "b" differs from the --out file name "a"/);
  const help = await memeval(['targets', 'new', '--help']);
  assert.equal(help.exitCode, 0);
  assert.match(help.stdout, /Examples:\n {2}memeval targets new /);
});

test(
  'targets new drafts server-memory: its store is moved into the fixture by MEMORY_FILE_PATH; check passes',
  opts,
  async (t) => {
    const stray = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-memory', 'dist', 'memory.jsonl');
    const strayBefore = existsSync(stray);
    const out = join(tempDir(t), 'server-memory.json5');
    const r = await memeval(['targets', 'new', '@modelcontextprotocol/server-memory@2026.8.31', '--out', out]);
    assert.equal(r.exitCode, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /is a dependency of memeval; nothing to install/);
    assert.match(r.stdout, /trying again with MEMORY_FILE_PATH=\{\{data\}\}\/memory\.jsonl/);
    const decl = JSON5.parse(readFileSync(out, 'utf8'));
    assert.deepEqual(decl.package, {
      npm: '@modelcontextprotocol/server-memory',
      version: '2026.8.31',
      bin: 'mcp-server-memory',
      source: 'dependency',
    });
    assert.deepEqual(decl.server.env, { MEMORY_FILE_PATH: '{{data}}/memory.jsonl' });
    assert.deepEqual(decl.store, { format: 'jsonl', path: '{{data}}/memory.jsonl' });
    assert.equal(decl.ops.remember[0].tool, 'create_entities', 'add_observations was refused: no entity yet');
    assert.deepEqual(decl.recall_results, { json: 'entities' });
    if (!strayBefore) assert.ok(!existsSync(stray), 'the file the first attempt wrote into the package is removed');
  },
);
