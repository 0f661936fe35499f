/**
 * The controllable clock through the real CLI: setup.clock and advance_clock reach the server
 * (at load, across a restart, and in a running process), the report and clock.json keep the
 * clock, the built-in expiry scenario passes an honest expiring server and catches its violation,
 * a server that answers from a process without the preload is error, and a server that is not
 * Node makes the cell unsupported.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import JSON5 from 'json5';
import { memeval, ROOT } from '../helpers.ts';
import { HOSTILE_DIR as HOSTILE, hostileDecl, runInline, tempDir, timeLimit, writeJson } from '../kit.ts';

/** The hostile server in honest mode (it stamps each write with its wall clock and has an expire tool). */
const CLOCKED = hostileDecl('honest', {
  name: 'clocked',
  provider: true,
  env: { SIDECAR: '{{data}}/cache/history.log' },
});

/** Written on 2026-01-01 (seed) and 2026-02-15 (after +45d, no restart); expired by a sweep in the same process. */
const runningProcess = {
  schema_version: 1,
  id: 'clock-running-process',
  title: 'an advance reaches the running server',
  description: 'd',
  setup: { clock: '2026-01-01T00:00:00Z', memories: [{ ref: 'old', content: 'User is on the war-room rota' }] },
  deterministic: {
    well_behaved: [
      { op: 'advance_clock', by: '45d' },
      { op: 'remember', content: 'User moved CI to Buildkite' },
      { op: 'expire' },
    ],
    violation: null,
  },
  assertions: [
    {
      kind: 'sql',
      name: 'the seed was stamped with the start',
      phase: 'both',
      query: "SELECT substr(json_extract(json, '$.at'), 1, 10) FROM store.records WHERE json LIKE '%war-room%'",
      op: 'eq',
      value: '2026-01-01',
    },
    {
      kind: 'sql',
      name: 'the write after the advance was stamped 45 days on, without a restart',
      phase: 'both',
      query: "SELECT substr(json_extract(json, '$.at'), 1, 10) FROM store.records WHERE json LIKE '%Buildkite%'",
      op: 'eq',
      value: '2026-02-15',
    },
    { kind: 'count', name: 'expired in the running process', phase: 'both', contains: 'war-room', op: 'eq', value: 0 },
    { kind: 'count', name: 'fresh kept', phase: 'both', contains: 'Buildkite', op: 'eq', value: 1 },
  ],
};

test(
  'clock scenarios: shifted at load, across restarts and while running; recorded; fail-closed; unsupported off Node',
  { timeout: timeLimit(120_000) },
  async (t) => {
    const expiry = JSON5.parse(readFileSync(join(ROOT, 'scenarios', 'expired-memory-archived.json5'), 'utf8'));
    const notNode = {
      ...JSON.parse(JSON.stringify({ name: 'shell', description: 'a server started by a shell' })),
      server: {
        command: '/bin/sh',
        args: ['-c', `exec node ${join(HOSTILE, 'hostile.mjs')}`],
        env: { STORE: '{{data}}/s.jsonl' },
      },
      store: { format: 'jsonl', path: '{{data}}/s.jsonl' },
      views: {
        memories:
          "SELECT line AS id, json_extract(json, '$.text') AS content, NULL AS category, NULL AS source, NULL AS subject, NULL AS created_at, 0 AS is_deleted FROM store.records",
      },
      ops: {
        remember: [{ tool: 'remember', args: { text: '{{content}}' } }],
        recall: [{ tool: 'recall', args: { query: '{{query}}' } }],
        expire: [{ tool: 'expire', args: {} }],
      },
      recall_results: { json: 'results' },
    };
    const r = await runInline(t, {
      scenarios: [expiry, runningProcess],
      targets: [CLOCKED, join(HOSTILE, 'hostile-clock-respawn.json5'), notNode],
      config: { workers: 2 },
    });
    const { report, out } = r;
    const cell = (s: string, target: string, phase: string) => r.cell(s, phase, target) as Record<string, any>;

    // the honest expiring server: the built-in scenario passes and its violation is caught
    const wb = cell('expired-memory-archived', 'clocked', 'well-behaved');
    assert.equal(wb.verdict, 'pass', wb.reason);
    assert.equal(cell('expired-memory-archived', 'clocked', 'violation').verdict, 'detected');
    const steps = wb.steps.filter((s: { stage: string }) => s.stage === 'step');
    assert.deepEqual(
      steps.map((s: { op: string }) => s.op),
      ['advance_clock', 'remember', 'restart', 'expire'],
    );
    assert.match(steps[0].result, /clock \+45d: .* reads 2026-02-15T00:0/);
    assert.equal(steps[3].result, 'archived 1', 'the restarted server read the advanced clock at load');
    assert.equal(wb.clock.start, '2026-01-01T00:00:00Z');
    assert.deepEqual(
      wb.clock.events.map((e: { event: string; by?: string }) => [e.event, e.by ?? null]),
      [
        ['start', null],
        ['advance', '45d'],
      ],
    );
    assert.ok(Math.abs(wb.clock.offset_ms - (Date.parse('2026-02-15T00:00:00Z') - Date.now())) < timeLimit(60_000));
    const kept = JSON.parse(readFileSync(join(out, report.run_id, wb.cell_dir, 'clock.json'), 'utf8'));
    assert.deepEqual(kept.events, wb.clock.events);
    assert.ok(existsSync(join(out, report.run_id, wb.cell_dir, 'clock-acks.jsonl')));

    // an advance reaches the server without a restart
    const running = cell('clock-running-process', 'clocked', 'well-behaved');
    assert.equal(running.verdict, 'pass', JSON.stringify(running.assertions));
    assert.ok(
      running.clock.applied.some((a: { version: number }) => a.version === 1),
      'the running process applied it',
    );

    // answered from a process without the preload: error, never a verdict on the machine's clock
    for (const phase of ['well-behaved', 'violation']) {
      const c = cell('expired-memory-archived', 'hostile-clock-respawn', phase);
      assert.equal(c.verdict, 'error', c.reason);
      assert.match(c.reason, /answered from a process without the clock preload/);
    }
    // not started as a Node program: unsupported, with the reason
    const sh = cell('expired-memory-archived', 'shell', 'well-behaved');
    assert.equal(sh.verdict, 'unsupported');
    assert.match(sh.reason, /Node servers only .* "\/bin\/sh"/);
    assert.equal(r.exitCode, 1, 'the error cells fail the run');
  },
);

test('a clock that is not a time, or an advance that is not a duration, is refused before anything runs', async (t) => {
  const dir = tempDir(t);
  const file = writeJson(join(dir, 'bad-clock.json5'), {
    ...runningProcess,
    id: 'bad-clock',
    setup: { clock: 'next tuesday' },
    deterministic: {
      well_behaved: [
        { op: 'advance_clock', by: '30 days' },
        { op: 'remember', content: 'x' },
      ],
      violation: null,
    },
  });
  const r = await memeval(['validate', file]);
  assert.equal(r.exitCode, 3);
  const text = String(r.stdout) + String(r.stderr);
  assert.match(text, /bad-clock\.json5/);
  assert.match(text, /setup\.clock: an ISO 8601 time with its zone, e\.g\. "2026-01-01T00:00:00Z"/);
  assert.match(text, /deterministic\.well_behaved\[0\]\.by: a duration longer than zero: .*"30d"/);
});
