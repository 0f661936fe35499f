import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LatencyHistory } from '../../../src/fuzz/checks.ts';
import type { CallRecord } from '../../../src/mcp/calls-log.ts';

const call = (m: number, i: number): CallRecord => ({
  seq: i + 1,
  session: 1,
  stage: 'fuzz:0',
  op: 'remember',
  tool: 'save',
  arguments: {},
  result_text: '',
  is_error: false,
  ms: m,
  ts: `2026-01-01T00:00:00.${String(i).padStart(3, '0')}Z`,
});
/** one case's calls: a quick first call of the session (its own history), then `ms` */
const calls = (ms: number[]): CallRecord[] => [50, ...ms].map(call);

test("latency: an outlier against the recipe's own p95, only after enough samples and above the floor", () => {
  const settings = { latencyFactor: 1.5, latencyMinSamples: 10, latencyFloorMs: 1000 };
  const h = new LatencyHistory(settings);
  assert.deepEqual(
    h.check('r', calls([100, 100, 100, 100, 100, 100, 100, 100, 100])),
    [],
    'nine samples: no judgement yet',
  );
  assert.deepEqual(h.check('r', calls([5000])), [], 'still only nine samples before this case');
  const h2 = new LatencyHistory(settings);
  h2.check('r', calls(Array(20).fill(100)));
  assert.deepEqual(h2.check('r', calls([900])), [], 'below the 1000 ms floor');
  const f = h2.check('r', calls([1200]));
  assert.equal(f.length, 1);
  assert.match(f[0].reason, /slower than 1000 ms/);
  assert.deepEqual(h2.check('other', calls([1200])), [], 'each recipe has its own history');
  const h3 = new LatencyHistory(settings);
  h3.check('r', calls(Array(20).fill(1000)));
  assert.deepEqual(h3.check('r', calls([1400])), [], '1.5 × p95 of 1000 ms is 1500 ms');
  assert.equal(h3.check('r', calls([1600])).length, 1);
  // the first call of a session (server warm-up) is held to the history of first calls only
  const h5 = new LatencyHistory(settings);
  for (let i = 0; i < 10; i++)
    h5.check('r', [
      call(950, 0),
      ...Array(5)
        .fill(100)
        .map((m, j) => call(m, j + 1)),
    ]);
  assert.deepEqual(
    h5.check('r', [call(1200, 0), call(100, 1)]),
    [],
    'a 1.2 s first call among ~1 s first calls is no outlier',
  );
  assert.equal(h5.check('r', [call(100, 0), call(1200, 1)]).length, 1, 'a 1.2 s call later in the session is');
  const h4 = new LatencyHistory({ ...settings, latencyFactor: 3, latencyFloorMs: 10 });
  h4.check('r', calls(Array(20).fill(100)));
  assert.deepEqual(h4.check('r', calls([250])), [], 'factor is settable');
  assert.equal(h4.check('r', calls([310])).length, 1);
});

test('latency: judged from the first call of a run against the stored history; too little or a damaged one is unjudged, never clean', () => {
  const settings = { latencyFactor: 1.5, latencyMinSamples: 10, latencyFloorMs: 1000 };
  const saved = new Map<string, number[]>([
    ['r', Array(20).fill(100)],
    ['r (first call of a session)', Array(20).fill(50)],
  ]);
  const store = {
    load: (key: string) => saved.get(key) ?? [],
    save: (key: string, ms: number[]) => void saved.set(key, [...(saved.get(key) ?? []), ...ms]),
  };
  const unjudged: string[] = [];
  const f = new LatencyHistory(settings, store).check('r', calls([1200]), true, unjudged);
  assert.equal(f.length, 1, 'the first case of a new run is judged against earlier runs');
  assert.match(f[0].reason, /p95 of 100 ms over 20 calls/);
  assert.deepEqual(unjudged, []);
  assert.equal(saved.get('r')?.length, 21, 'the run adds its samples to the store');

  const fresh: string[] = [];
  assert.deepEqual(new LatencyHistory(settings, store).check('new', calls([5000]), true, fresh), []);
  assert.match(fresh.join('\n'), /latency of new: 0 sample\(s\) in its history, 10 needed/);

  const damaged: string[] = [];
  const bad = {
    load: () => {
      throw new Error('flags.db: a latency sample of t / r is not a duration (x)');
    },
    save: () => assert.fail('a damaged history is not added to'),
  };
  assert.deepEqual(new LatencyHistory(settings, bad).check('r', calls([5000]), true, damaged), []);
  assert.match(damaged.join('\n'), /the stored history could not be read: .*not a duration/);
});
