import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StepRecord } from '../../../src/core/results.js';
import { replayDriver } from '../../../src/drive/replay.js';
import type { CellEnv, Sessions } from '../../../src/drive/types.js';
import type { Fixture } from '../../../src/fixture/fixture.js';
import type { TargetSession } from '../../../src/mcp/session.js';
import { handleFor } from '../../../src/ops/ops.js';
import { scenarioSchema } from '../../../src/scenario/schema.js';
import type { ResolvedBin } from '../../../src/targets/resolve-bin.js';
import { loadTarget } from '../../../src/targets/loader.js';
import { scenario } from '../../helpers.js';

/** Sessions that never kill (these tests have no kill step). */
const NO_KILLS = {
  kill: () => Promise.reject(new Error('no kill in this test')),
  armKill: async () => undefined,
  storeBytes: () => null,
};

// A driver returns the memories as its phase left them; the env it was handed stays as it was.
test('the replay driver returns the handles its steps changed and leaves env.handles alone', async () => {
  const decl = loadTarget('server-memory').decl;
  const s = scenarioSchema.parse(
    scenario('handles', {
      setup: { memories: [{ ref: 'indent', content: 'User prefers tabs' }] },
      deterministic: {
        well_behaved: [
          { op: 'update', memory: '$ref:indent', content: 'User prefers 4 spaces' },
          { op: 'remember', ref: 'theme', content: 'User prefers dark mode' },
        ],
        violation: null,
      },
      assertions: [{ kind: 'count', name: 'theme once', phase: 'both', contains: 'dark mode', op: 'eq', value: 1 }],
    }),
  );
  const calls: string[] = [];
  const session = {
    callTool: async (tool: string) => (calls.push(tool), { ok: true, ms: 1, text: 'ok' }),
  } as unknown as TargetSession;
  const sessions: Sessions = {
    current: () => session,
    start: async () => session,
    stop: async () => {},
    startExtra: async () => ({ no: 2, session }),
    stopExtra: async () => {},
    ...NO_KILLS,
  };
  const seeded = { ...handleFor(decl, { content: 'User prefers tabs' }), id: 'seed-id' };
  const steps: StepRecord[] = [];
  const env: CellEnv = {
    scenario: s,
    decl,
    bin: {} as ResolvedBin,
    fixture: {} as Fixture,
    cellDir: '/nonexistent',
    callsLog: '/nonexistent/calls.jsonl',
    serverEnv: {},
    bridges: [],
    handles: new Map([['indent', seeded]]),
    sessions,
    record: (r) => void steps.push(r),
  };
  const out = await replayDriver(s, 'well-behaved').drive(env);
  assert.equal(out.handles.get('indent')?.content, 'User prefers 4 spaces');
  assert.equal(out.handles.get('indent')?.id, 'seed-id');
  assert.equal(out.handles.get('theme')?.content, 'User prefers dark mode');
  assert.equal(env.handles.get('indent')?.content, 'User prefers tabs', 'the seeded handle is not changed in place');
  assert.equal(env.handles.has('theme'), false);
  assert.deepEqual(
    steps.map((r) => [r.stage, r.op, r.ok]),
    [
      ['step', 'update', true],
      ['step', 'remember', true],
    ],
  );
  assert.ok(calls.length >= 3, 'every step went through the session');
});
