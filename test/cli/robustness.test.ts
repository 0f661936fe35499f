import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixtureProcesses, memeval, ROOT } from '../helpers.ts';
import { readReportFile, runInline, scenario, tempDir, timeLimit, writeJson } from '../kit.ts';

const SDK = join(ROOT, 'node_modules', '@modelcontextprotocol', 'sdk', 'dist', 'esm');

/** A real MCP server (SDK) whose `save` tool never answers: a hung target. */
const HANG = `
import { McpServer } from '${SDK}/server/mcp.js';
import { StdioServerTransport } from '${SDK}/server/stdio.js';
const server = new McpServer({ name: 'hang', version: '1.0.0' });
server.registerTool('save', { description: 'never returns' }, () => new Promise(() => {}));
await server.connect(new StdioServerTransport());
`;
/** Prints text that is not JSON-RPC and never answers. */
const GARBAGE = `setInterval(() => process.stdout.write('hello, this is not json\\n'), 50); process.stdin.resume();`;
/** Dies at start with a message on stderr. */
const CRASH = `process.stderr.write('fatal: cannot open store at /nonexistent\\n'); process.exit(7);`;

function target(dir: string, name: string, script: string, timeouts: Record<string, number> = {}) {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(file, script);
  return writeJson(join(dir, `${name}.json5`), {
    name,
    description: `a ${name} server made by the test`,
    server: { command: process.execPath, args: [file], startup_timeout_ms: 3000, call_timeout_ms: 1500, ...timeouts },
    store: { format: 'jsonl', path: '{{data}}/none.jsonl' },
    views: {
      memories:
        'SELECT line AS id, json AS content, NULL AS category, NULL AS source, 0 AS is_deleted FROM store.records',
    },
    ops: { remember: [{ tool: 'save', args: { text: '{{content}}' } }] },
  });
}

// the error code says how the target failed, so no reader has to parse the reason
for (const [name, script, reason, code] of [
  ['crash', CRASH, /server did not start/, 'TARGET_EXIT'],
  ['garbage', GARBAGE, /server did not start/, 'TARGET_TIMEOUT'],
  ['hang', HANG, /save: .*timed out/i, 'TARGET_TIMEOUT'],
] as const) {
  test(`a target that ${name === 'hang' ? 'hangs' : name === 'crash' ? 'crashes' : 'speaks garbage'} gives the phase an error verdict and the run goes on`, async (t) => {
    const dir = tempDir(t);
    // the CLI: the progress it prints is checked too
    const r = await runInline(t, {
      mode: 'cli',
      scenarios: [scenario('one'), scenario('two')],
      targets: [target(dir, name, script)],
      args: ['--json'],
      spawn: { timeout: timeLimit(60_000) },
    });
    assert.equal(r.exitCode, 1, r.stderr);
    const { report } = r;
    assert.equal(report.results.length, 4, 'every phase of both scenarios still ran');
    for (const res of report.results) {
      assert.equal(res.verdict, 'error');
      assert.match(res.reason ?? '', reason);
      assert.equal(res.error_code, code);
      assert.equal(res.fixture, 'removed');
    }
    if (name === 'crash') assert.match(report.results[0].stderr_tail ?? '', /fatal: cannot open store/);
    assert.match(r.stderr, /error\s+one/);
  });
}

test('Ctrl-C writes a report marked interrupted, removes fixtures and leaves no child process', async (t) => {
  const dir = tempDir(t);
  const out = tempDir(t);
  const tmp = tempDir(t);
  mkdirSync(join(dir, 'sc'));
  for (const id of ['a-one', 'a-two', 'a-three', 'a-four']) writeJson(join(dir, 'sc', `${id}.json`), scenario(id));
  const file = target(dir, 'hang', HANG, { call_timeout_ms: 60000 });
  const child = memeval(['run', '--scenarios', join(dir, 'sc'), '--target', file, '--out', out, '--workers', '2'], {
    env: { NO_COLOR: '1', TMPDIR: tmp },
    timeout: timeLimit(60_000),
  });
  // wait until both workers have a server hanging on a call
  const deadline = Date.now() + timeLimit(20_000);
  const servers = () => fixtureProcesses(tmp, join(dir, 'hang.mjs'));
  while (Date.now() < deadline && servers().length < 2) await new Promise((r) => setTimeout(r, 100));
  assert.equal(servers().length, 2, 'two servers were running');
  child.kill('SIGINT');
  const r = await child;
  assert.equal(r.exitCode, 130);
  const [runId] = readdirSync(out);
  const report = readReportFile(join(out, runId));
  assert.equal(report.status, 'interrupted');
  assert.equal(report.summary.exit_code, 130, 'the report says what the CLI exited with');
  assert.ok(report.results.every((x) => x.verdict === 'skipped'));
  assert.deepEqual(
    readdirSync(tmp).filter((f) => f.startsWith('memeval-')),
    [],
    'fixtures removed',
  );
  assert.deepEqual(fixtureProcesses(tmp), [], 'no process of a fixture outlived the run');
});
