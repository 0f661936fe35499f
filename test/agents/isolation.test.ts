import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AGENT_NAMES } from '../../src/agent/types.ts';
import { agentRun, fakeKeys, modelEndpoint } from '../agent-kit.ts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { execa } from 'execa';
import { openBridge } from '../../src/fixture/bridge.ts';
import { sandboxLaunch, type LoopbackBridge } from '../../src/fixture/sandbox.ts';
import { memeval, ROOT, tempDir, writeJson, timeLimit } from '../helpers.ts';
import { jsonl, OutsideListener, ROUTES, spyTarget } from '../spy-target.ts';

// A target must see only the fixture's scrubbed environment and no network beyond loopback,
// whoever starts it: memeval itself (deterministic layer) or a real agent through memeval's proxy.

const MARKER = 'sk-memeval-leak-marker-7f3a9c';
const SCRUBBED_KEYS = [
  'PATH',
  'HOME',
  'USERPROFILE',
  'XDG_CONFIG_HOME',
  'XDG_CACHE_HOME',
  'XDG_DATA_HOME',
  'XDG_STATE_HOME',
  'TMPDIR',
  'LANG',
  'NO_COLOR',
  'NODE_ENV',
];
// MEMEVAL_OWNER tags the server's process tree so nothing it starts outlives the cell
const TARGET_KEYS = [
  ...SCRUBBED_KEYS,
  'MEMORY_FILE_PATH',
  'NODE_OPTIONS',
  'MEMEVAL_NETGUARD_LOG',
  'MEMEVAL_OWNER',
].sort();

function checkSpy(spy: { envLog: string; routeLog: string }, outside: OutsideListener, report: any) {
  const starts = jsonl(spy.envLog);
  assert.ok(starts.length > 0, 'the spy target started');
  for (const s of starts) {
    assert.doesNotMatch(
      JSON.stringify(s.env),
      new RegExp(MARKER),
      `the marker reached the target (started by ${s.parent})`,
    );
    // nothing but the fixture's own environment (no shell-set variables like PWD or SHLVL either)
    const keys = Object.keys(s.env)
      .filter((k) => !['PWD', 'SHLVL', '_', 'OLDPWD'].includes(k))
      .sort();
    assert.deepEqual(keys, TARGET_KEYS, `environment of a target started by ${s.parent}`);
    assert.match(s.env.NODE_OPTIONS, /netguard/, 'the preload was in place, whatever the starter strips');
  }
  const tried = new Set(jsonl(spy.routeLog).map((r) => r.route));
  assert.deepEqual([...tried].sort(), [...ROUTES].sort(), 'the spy tried every route');
  assert.deepEqual(outside.received, [], 'nothing reached the outside listener');
  for (const cell of report.results) {
    assert.equal(cell.network, 'isolated', `${cell.scenario}: network mode`);
    // the preload still names what Node code tried
    const warnings = cell.warnings.join('\n');
    assert.match(warnings, /leak-dns-resolve\.example \(dns\)/);
    assert.match(warnings, /leak-dns-resolver\.example \(dns\)/);
    assert.match(warnings, new RegExp(`${outside.host.replace(/\./g, '\\.')} \\([^)]*udp :${outside.udpPort}[,)]`));
    assert.match(warnings, new RegExp(`${outside.host.replace(/\./g, '\\.')} \\([^)]*connect :${outside.tcpPort}[,)]`));
  }
  return starts;
}

test(
  'deterministic layer: a target gets the scrubbed env, and no escape route leaves its network namespace',
  { timeout: timeLimit(300_000) },
  async (t) => {
    const dir = tempDir(t);
    const outside = new OutsideListener();
    await outside.start();
    t.after(() => outside.stop());
    const spy = spyTarget(dir, outside);
    const r = await memeval(
      ['run', '--target', spy.file, '--scenario', 'run-noise-not-stored', '--json', '--out', dir],
      {
        env: { NO_COLOR: '1', MEMEVAL_LEAK_MARKER: MARKER, OPENAI_API_KEY: MARKER },
      },
    );
    assert.ok(r.stdout.trim().startsWith('{'), `no report (exit ${r.exitCode}): ${r.stderr.slice(-1500)}`);
    const report = JSON.parse(r.stdout);
    checkSpy(spy, outside, report);
  },
);

test(
  'without a network namespace a Node target is "guarded" and a non-Node one "open", each with a warning',
  { timeout: timeLimit(300_000) },
  async (t) => {
    const dir = tempDir(t);
    const outside = new OutsideListener();
    await outside.start();
    t.after(() => outside.stop());
    const spy = spyTarget(dir, outside);
    const wrapped = JSON.parse(readFileSync(spy.file, 'utf8'));
    wrapped.name = 'spy-wrapped';
    wrapped.server.args = ['-c', `exec "${process.execPath}" "${wrapped.server.args[0]}"`];
    wrapped.server.command = '/bin/sh';
    const wrappedFile = writeJson(join(dir, 'spy-wrapped.json5'), wrapped);
    const r = await memeval(
      ['run', '--target', `${spy.file},${wrappedFile}`, '--scenario', 'run-noise-not-stored', '--json', '--out', dir],
      {
        env: { NO_COLOR: '1', MEMEVAL_NETNS: 'off' },
      },
    );
    assert.ok(r.stdout.trim().startsWith('{'), `no report (exit ${r.exitCode}): ${r.stderr.slice(-1500)}`);
    const report = JSON.parse(r.stdout);
    const by = (name: string) => report.results.filter((c: { target: string }) => c.target === name);
    for (const cell of by('spy-memory')) {
      assert.equal(cell.network, 'guarded');
      assert.match(
        cell.warnings.join('\n'),
        /network: guarded only .* cannot stop dns\.resolve, UDP, child processes or non-Node programs/,
      );
    }
    for (const cell of by('spy-wrapped')) {
      assert.equal(cell.network, 'open');
      assert.match(cell.warnings.join('\n'), /network: OPEN for spy-wrapped/);
    }
    assert.equal(report.results.length, 4);
    // the listener does see what the preload cannot stop: the routes the namespace closes
    await outside.waitFor(/tcp:leak-child/, timeLimit(30_000));
    await outside.waitFor(/udp:leak-bash/, timeLimit(30_000));
    // while the preload still refuses what Node code in the server itself tries
    assert.ok(!outside.received.some((x) => /leak-tcp|leak-dgram|leak-dns/.test(x)), JSON.stringify(outside.received));
  },
);

for (const agent of AGENT_NAMES) {
  test(
    `${agent}: the target it starts sees no host key, and no escape route leaves the machine`,
    { timeout: timeLimit(600_000) },
    async (t) => {
      const dir = tempDir(t);
      const outside = new OutsideListener();
      await outside.start();
      t.after(() => outside.stop());
      const spy = spyTarget(dir, outside);
      // a real-model run: the host's keys go to the agent, which hands its env to MCP servers
      const { model, url } = await modelEndpoint(t);
      const r = await agentRun(t, agent, {
        model: 'test-model',
        baseUrl: url,
        targets: [spy.file],
        config: { scenarioIds: ['tentative-preference-not-stored'] },
        env: { ...fakeKeys(agent, MARKER), MEMEVAL_LEAK_MARKER: MARKER },
      });
      const { report } = r;
      const runDir = r.runDir ?? assert.fail(`the run wrote no run directory:\n${r.output}`);
      const starts = checkSpy(spy, outside, report);
      // servers run as PID 1 of their own namespace, so their parent is not visible to them: the
      // recording point is what shows the agent started the target through memeval's proxy
      assert.ok(starts.length > 0);
      const cellCalls = readFileSync(join(runDir, report.results[0].cell_dir, 'calls.jsonl'), 'utf8');
      assert.match(
        cellCalls,
        /"stage":"agent","method":"tools\/list"/,
        `the agent listed the tools through the proxy; cells: ${JSON.stringify(report.results.map((c) => [c.verdict, c.reason]))}`,
      );
      assert.ok(model.modelRequests().length > 0, 'the agent reached the model');
    },
  );
}

test(
  'a bridged memeval loopback service stays reachable from inside the namespace, at its own port',
  { timeout: timeLimit(120_000) },
  async (t) => {
    const service = createServer((req, res) => res.end(`hello from the host (${req.url})`));
    await new Promise<void>((r) => service.listen(0, '127.0.0.1', r));
    t.after(() => service.close());
    const port = (service.address() as AddressInfo).port;
    const bridge = await openBridge(port);
    t.after(() => bridge.close());
    const probe = (bridges: LoopbackBridge[]) => {
      const code = `fetch('http://127.0.0.1:${port}/probe').then(async (r) => console.log(await r.text()), (e) => console.log('unreachable: ' + (e.cause?.code ?? e.message)))`;
      const l = sandboxLaunch(
        { command: process.execPath, args: ['-e', code], env: { PATH: process.env.PATH ?? '' }, cwd: ROOT },
        bridges,
      );
      assert.equal(l.network, 'isolated');
      return execa(l.command, l.args, { env: l.env, extendEnv: false, cwd: l.cwd, timeout: timeLimit(60_000) });
    };
    assert.match(
      (await probe([])).stdout,
      /unreachable: ECONNREFUSED/,
      'without a bridge the namespace has no host service',
    );
    assert.equal((await probe([bridge])).stdout.trim(), 'hello from the host (/probe)');
  },
);
