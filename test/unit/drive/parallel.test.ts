import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StepRecord } from '../../../src/core/results.js';
import { replayDriver } from '../../../src/drive/replay.js';
import type { CellEnv, Sessions } from '../../../src/drive/types.js';
import type { Fixture } from '../../../src/fixture/fixture.js';
import { TargetError, type TargetSession } from '../../../src/mcp/session.js';
import { scenarioSchema, type ScenarioInput } from '../../../src/scenario/schema.js';
import type { ResolvedBin } from '../../../src/targets/resolve-bin.js';
import { loadTarget } from '../../../src/targets/loader.js';
import { scenario } from '../../helpers.js';

/** Sessions that never kill (these tests have no kill step). */
const NO_KILLS = {
  kill: () => Promise.reject(new Error('no kill in this test')),
  armKill: async () => undefined,
  storeBytes: () => null,
};

/** A session whose calls stay in flight until every call of the step has been issued; `hang` texts never answer. */
function fakeSession(name: string, log: { session: string; text: string }[], hang?: string) {
  let inFlight = 0;
  const state = { maxInFlight: 0 };
  const session = {
    callTool: async (_tool: string, args: Record<string, unknown>) => {
      const text = JSON.stringify(args);
      log.push({ session: name, text });
      inFlight++;
      state.maxInFlight = Math.max(state.maxInFlight, inFlight);
      await new Promise((r) => setTimeout(r, 10));
      inFlight--;
      if (hang && text.includes(hang)) throw new TargetError('timeout', 'no answer in 20000 ms', '');
      return { ok: true, ms: 10, text: `ok ${name}` };
    },
  } as unknown as TargetSession;
  return { session, state };
}

function envFor(input: ScenarioInput, sessions: Sessions, steps: StepRecord[]): CellEnv {
  return {
    scenario: scenarioSchema.parse(input),
    decl: loadTarget('server-memory').decl,
    bin: {} as ResolvedBin,
    fixture: {} as Fixture,
    cellDir: '/nonexistent',
    callsLog: '/nonexistent/calls.jsonl',
    serverEnv: {},
    bridges: [],
    handles: new Map(),
    sessions,
    record: (r) => void steps.push(r),
  };
}

const parallelScenario = (extra: Record<string, unknown> = {}) =>
  scenario('par', {
    deterministic: {
      well_behaved: [
        {
          op: 'parallel',
          ...extra,
          steps: [
            { op: 'remember', ref: 'a', content: 'fact alpha' },
            { op: 'remember', ref: 'b', content: 'fact beta' },
            { op: 'recall', query: 'fact gamma' },
          ],
        },
        { op: 'forget', memory: '$ref:b' },
      ],
      violation: null,
    },
    assertions: [{ kind: 'count', name: 'kept', phase: 'both', contains: 'fact', op: 'eq', value: 1 }],
  }) as ScenarioInput;

test('a parallel step issues its calls at once, spread over its sessions, and records each; extra sessions stop after it', async () => {
  const log: { session: string; text: string }[] = [];
  const main = fakeSession('main', log);
  const extra = fakeSession('extra', log);
  const stopped: number[] = [];
  const sessions: Sessions = {
    current: () => main.session,
    start: async () => main.session,
    stop: async () => {},
    startExtra: async () => ({ no: 2, session: extra.session }),
    stopExtra: async (e) => void stopped.push(e.no),
    ...NO_KILLS,
  };
  const steps: StepRecord[] = [];
  const env = envFor(parallelScenario({ sessions: 2 }), sessions, steps);
  const out = await replayDriver(env.scenario, 'well-behaved').drive(env);
  assert.ok(main.state.maxInFlight >= 2, 'two calls of the step were in flight at once on the current session');
  assert.ok(
    log.some((l) => l.session === 'extra'),
    'the second session issued a call',
  );
  assert.deepEqual(stopped, [2]);
  assert.equal(steps[0].op, 'parallel');
  assert.equal(steps[0].ok, true);
  assert.deepEqual(
    steps[0].calls?.map((c) => [c.index, c.op, c.session_slot, c.returned]),
    [
      [0, 'remember', 0, true],
      [1, 'remember', 1, true],
      [2, 'recall', 0, true],
    ],
  );
  // a ref named in the parallel step is usable after it
  assert.ok(out.handles.has('a') && out.handles.has('b'));
  assert.equal(steps[1].op, 'forget');
});

test('a parallel step some of whose calls never returned throws (the cell is error) after recording which', async () => {
  const log: { session: string; text: string }[] = [];
  const main = fakeSession('main', log, 'beta');
  const sessions: Sessions = {
    current: () => main.session,
    start: async () => main.session,
    stop: async () => {},
    startExtra: async () => assert.fail('one session only'),
    stopExtra: async () => {},
    ...NO_KILLS,
  };
  const steps: StepRecord[] = [];
  const env = envFor(parallelScenario(), sessions, steps);
  await assert.rejects(replayDriver(env.scenario, 'well-behaved').drive(env), (e: unknown) => {
    assert.ok(e instanceof TargetError);
    assert.equal(e.code, 'TARGET_TIMEOUT');
    assert.match(e.message, /1 of 3 call\(s\) of the parallel step never returned \(#1 remember/);
    return true;
  });
  assert.equal(steps.length, 1, 'the step is recorded, and no later step ran');
  assert.equal(steps[0].ok, false);
  assert.deepEqual(
    steps[0].calls?.map((c) => c.returned),
    [true, false, true],
  );
});
