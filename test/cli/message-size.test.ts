import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { copies, faultyDecl, runInline, tempDir } from '../kit.ts';

// each run gets its own TMPDIR, so fixtures of other tests running meanwhile are not counted
const fixturesLeft = (tmp: string) =>
  readdirSync(tmp).filter((f) => f.startsWith('memeval-s1-') || f.startsWith('memeval-s2-'));

/** Two scenarios on the fault server through the CLI (what it prints is checked for a stack trace). */
async function onFaulty(t: { after: (fn: () => void) => void }, fault: string, server: Record<string, unknown> = {}) {
  const tmp = tempDir(t);
  const r = await runInline(t, {
    mode: 'cli',
    scenarios: copies(2),
    targets: [faultyDecl('faulty', fault, server)],
    config: { workers: 1 },
    args: ['--json'],
    env: { TMPDIR: tmp },
  });
  assert.doesNotMatch(r.stderr, /ReadBuffer|at .*\.(js|ts):\d+/, 'no stack trace');
  const report = r.report;
  assert.equal(report.results.length, 4, 'every phase of both scenarios ran');
  return { r, report, tmp };
}

test('a message under server.max_message_bytes goes through', async (t) => {
  const { r, report } = await onFaulty(t, 'big:900000', { max_message_bytes: 1024 * 1024 });
  assert.equal(r.exitCode, 0, r.stderr);
  assert.ok(report.results.every((x) => x.verdict !== 'error'));
});

test('a message over server.max_message_bytes makes each cell an error with the reason; the run goes on', async (t) => {
  const { r, report, tmp } = await onFaulty(t, 'big:1100000', { max_message_bytes: 1024 * 1024 });
  assert.equal(r.exitCode, 1);
  for (const res of report.results) {
    assert.equal(res.verdict, 'error');
    assert.match(res.reason, /save: server sent a JSON-RPC message over 1 MiB \(server.max_message_bytes/);
    assert.equal(res.fixture, 'removed');
  }
  assert.deepEqual(fixturesLeft(tmp), []);
});

test('the default limit takes a 12 MB message (the SDK stops at 10 MB) and stops a flood with no newline', async (t) => {
  const big = await onFaulty(t, 'big:12000000');
  assert.equal(big.r.exitCode, 0, big.r.stderr);
  const flood = await onFaulty(t, 'flood');
  assert.equal(flood.r.exitCode, 1);
  for (const res of flood.report.results) {
    assert.equal(res.verdict, 'error');
    assert.match(res.reason, /over 64 MiB/);
  }
});

test('mcp-proxy: an oversize message from the server ends the session with the reason logged, no crash', async (t) => {
  const { spawn } = await import('node:child_process');
  const { readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { memevalArgv, ROOT } = await import('../helpers.ts');
  const { FAULTY } = await import('../faulty.ts');
  const dir = tempDir(t);
  const log = join(dir, 'calls.jsonl');
  const proxy = spawn(
    process.execPath,
    [...memevalArgv(), 'mcp-proxy', '--log', log, '--max-message-bytes', '1048576', '--', process.execPath, FAULTY],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', FAULT: 'big:1100000' },
    },
  );
  let stderr = '';
  proxy.stderr.on('data', (c) => (stderr += c));
  const send = (m: object) => proxy.stdin.write(JSON.stringify(m) + '\n');
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'save', arguments: { text: 'hello' } } });
  const code = await new Promise<number | null>((resolve) => proxy.on('exit', (c) => resolve(c)));
  assert.equal(code, 75, stderr);
  assert.match(stderr, /over 1 MiB/);
  assert.doesNotMatch(stderr, /ReadBuffer|    at /);
  const save = readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .find((r) => r.tool === 'save');
  assert.ok(save, 'the save call is logged');
  assert.match(JSON.stringify(save), /over 1 MiB/);
});
