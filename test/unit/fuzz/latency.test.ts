import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LatencyHistory } from '../../../src/fuzz/checks.ts';
import type { CallRecord } from '../../../src/mcp/calls-log.ts';
import { join } from 'node:path';
import { runCampaign } from '../../../src/fuzz/campaign.ts';
import { FlagStore } from '../../../src/fuzz/flags.ts';
import type { FuzzCase } from '../../../src/fuzz/case.ts';
import type { CaseOutcome, FuzzRunner } from '../../../src/fuzz/runner.ts';
import { DEFAULT_CHECK_SETTINGS } from '../../../src/fuzz/settings.ts';
import { loadScenarios, scenarioFiles } from '../../../src/scenario/loader.ts';
import { FUZZ_SERVER, localDecl } from '../../fuzz-helpers.ts';
import { ROOT, tempDir } from '../../helpers.ts';

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
/** what the campaign does with a case: judge it, then add its samples */
function judge(h: LatencyHistory, recipe: string, cs: CallRecord[], unjudged: string[] = []) {
  const f = h.check(recipe, cs, unjudged);
  h.record(recipe, cs);
  return f;
}

test("latency: an outlier against the recipe's own p95, only after enough samples and above the floor", () => {
  const settings = { latencyFactor: 1.5, latencyMinSamples: 10, latencyFloorMs: 1000 };
  const h = new LatencyHistory(settings);
  assert.deepEqual(
    judge(h, 'r', calls([100, 100, 100, 100, 100, 100, 100, 100, 100])),
    [],
    'nine samples: no judgement yet',
  );
  assert.deepEqual(judge(h, 'r', calls([5000])), [], 'still only nine samples before this case');
  const h2 = new LatencyHistory(settings);
  judge(h2, 'r', calls(Array(20).fill(100)));
  assert.deepEqual(judge(h2, 'r', calls([900])), [], 'below the 1000 ms floor');
  const f = judge(h2, 'r', calls([1200]));
  assert.equal(f.length, 1);
  assert.match(f[0].reason, /slower than 1000 ms/);
  assert.deepEqual(judge(h2, 'other', calls([1200])), [], 'each recipe has its own history');
  const h3 = new LatencyHistory(settings);
  judge(h3, 'r', calls(Array(20).fill(1000)));
  assert.deepEqual(judge(h3, 'r', calls([1400])), [], '1.5 × p95 of 1000 ms is 1500 ms');
  assert.equal(judge(h3, 'r', calls([1600])).length, 1);
  // the first call of a session (server warm-up) is held to the history of first calls only
  const h5 = new LatencyHistory(settings);
  for (let i = 0; i < 10; i++)
    judge(h5, 'r', [
      call(950, 0),
      ...Array(5)
        .fill(100)
        .map((m, j) => call(m, j + 1)),
    ]);
  assert.deepEqual(
    judge(h5, 'r', [call(1200, 0), call(100, 1)]),
    [],
    'a 1.2 s first call among ~1 s first calls is no outlier',
  );
  assert.equal(judge(h5, 'r', [call(100, 0), call(1200, 1)]).length, 1, 'a 1.2 s call later in the session is');
  const h4 = new LatencyHistory({ ...settings, latencyFactor: 3, latencyFloorMs: 10 });
  judge(h4, 'r', calls(Array(20).fill(100)));
  assert.deepEqual(judge(h4, 'r', calls([250])), [], 'factor is settable');
  assert.equal(judge(h4, 'r', calls([310])).length, 1);
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
  const f = judge(new LatencyHistory(settings, store), 'r', calls([1200]), unjudged);
  assert.equal(f.length, 1, 'the first case of a new run is judged against earlier runs');
  assert.match(f[0].reason, /p95 of 100 ms over 20 calls/);
  assert.deepEqual(unjudged, []);
  assert.equal(saved.get('r (first call of a session)')?.length, 21, 'the run adds its samples to the store');
  assert.equal(saved.get('r')?.length, 20, 'but not the outlier it flagged');

  const fresh: string[] = [];
  assert.deepEqual(judge(new LatencyHistory(settings, store), 'new', calls([5000]), fresh), []);
  assert.match(fresh.join('\n'), /latency of new: 0 sample\(s\) in its history, 10 needed/);

  const damaged: string[] = [];
  const bad = {
    load: () => {
      throw new Error('flags.db: a latency sample of t / r is not a duration (x)');
    },
    save: () => assert.fail('a damaged history is not added to'),
  };
  assert.deepEqual(judge(new LatencyHistory(settings, bad), 'r', calls([5000]), damaged), []);
  assert.match(damaged.join('\n'), /the stored history could not be read: .*not a duration/);
});

/** A runner that answers every case with the same calls (a first call of 1 ms, then `ms`), run after run. */
function fixedRunner(perRun: number[][]): FuzzRunner & { runs: number } {
  const r = {
    runs: 0,
    run: async (c: FuzzCase, cellDir: string): Promise<CaseOutcome> => {
      const ms = perRun[Math.min(r.runs++, perRun.length - 1)];
      return {
        fuzzCase: c,
        target: 'slowed',
        cellDir,
        calls: [1, ...ms].map((m, i) => ({ ...call(m, i), op: 'recall', tool: 'search' })),
        steps: new Map(),
        shutdown: [],
        protocolErrors: [],
        network: [],
        toolSchemas: new Map(),
        guessedIds: [],
        kills: new Map(),
        unjudged: [],
        unjudgedClaims: [],
        absent: new Map(),
        ms: 0,
      };
    },
  };
  return r;
}

test('latency: a case and its rerun are judged against the history from before the case; flagged samples never enter it', async (t) => {
  const dir = tempDir(t);
  const decl = localDecl('slowed', '');
  const scenarios = loadScenarios(scenarioFiles(join(ROOT, 'scenarios')));
  let n = 0;
  const campaign = async (runner: FuzzRunner) => {
    const flags = new FlagStore(join(dir, `flags-${++n}.db`));
    try {
      // earlier runs: every call answered in about 1 ms
      flags.addLatency(decl.name, 'burst-recall', Array(20).fill(1));
      flags.addLatency(decl.name, 'burst-recall (first call of a session)', Array(20).fill(1));
      const summary = await runCampaign({
        decl,
        bin: { packageDir: dir, file: FUZZ_SERVER, version: '0' },
        scenarios,
        seed: 'lat',
        budget: 1,
        recipes: ['burst-recall'],
        flags,
        history: false,
        outDir: join(dir, 'out'),
        keep: false,
        settings: DEFAULT_CHECK_SETTINGS,
        runner,
      });
      return { summary, saved: flags.latencySamples(decl.name, 'burst-recall') };
    } finally {
      flags.close();
    }
  };
  // recall went from ~1 ms to 1.5 s, in the case and in its rerun
  const slow = await campaign(fixedRunner([[1, 1500, 1500, 1500]]));
  assert.equal(slow.summary.by_check.latency, 1, `the rerun confirms it: ${JSON.stringify(slow.summary)}`);
  assert.equal(slow.summary.latency_unconfirmed, 0);
  assert.deepEqual(slow.saved, [...Array(20).fill(1), 1], 'the outliers are not saved as normal samples');
  // slow once, quick in the rerun: dropped, and still not saved
  const once = await campaign(
    fixedRunner([
      [1, 1500, 1500, 1500],
      [1, 1, 1, 1],
    ]),
  );
  assert.equal(once.summary.by_check.latency, 0);
  assert.equal(once.summary.latency_unconfirmed, 1);
  assert.deepEqual(once.saved, [...Array(20).fill(1), 1]);
});
