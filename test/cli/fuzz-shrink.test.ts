import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { localDecl } from '../fuzz-helpers.ts';
import { tempDir } from '../kit.ts';
import { ROOT } from '../helpers.ts';
import { runCampaign, type CaseReport } from '../../src/fuzz/campaign.ts';
import { FlagStore } from '../../src/fuzz/flags.ts';
import { flagToScenario } from '../../src/fuzz/export.ts';
import { leafSteps, type FuzzCase } from '../../src/fuzz/case.ts';
import { DEFAULT_CHECK_SETTINGS } from '../../src/fuzz/settings.ts';
import { resolveTargetBin } from '../../src/targets/resolve-bin.ts';
import { loadScenarios, scenarioFiles } from '../../src/scenario/loader.ts';
import { targetSchema, type TargetDecl } from '../../src/targets/schema.ts';

const itemised = (d: ReturnType<typeof localDecl>) =>
  targetSchema.parse({ ...d, recall_results: { regex: '^#\\d+ .+$', empty: { text: 'no results' } } });

async function campaign(
  t: { after: (fn: () => void) => void },
  decl: TargetDecl,
  o: { recipes: string[]; shrinkRuns: number; assumeClaims?: string[] },
) {
  const dir = tempDir(t);
  const flags = new FlagStore(join(dir, 'flags.db'));
  t.after(() => flags.close());
  const reports: CaseReport[] = [];
  const summary = await runCampaign({
    decl,
    bin: resolveTargetBin(decl),
    scenarios: loadScenarios(scenarioFiles(join(ROOT, 'scenarios'))),
    seed: 'shrink',
    budget: 1,
    recipes: o.recipes,
    flags,
    history: false,
    outDir: join(dir, 'out'),
    keep: false,
    settings: { ...DEFAULT_CHECK_SETTINGS, assumeClaims: o.assumeClaims },
    shrinkRuns: o.shrinkRuns,
    onCase: (r) => reports.push(r),
  });
  return { summary, reports, flags, row: flags.list()[0] };
}

test('a flagged case shrinks to a smaller one that raised the same flag again; both stay in the queue, export takes the shrunk one', async (t) => {
  const decl = itemised(localDecl('lossy', 'store-nothing'));
  const { summary, reports, row } = await campaign(t, decl, {
    recipes: ['concurrent'],
    shrinkRuns: 12,
    assumeClaims: ['recall'],
  });
  assert.equal(summary.flagged, 1, JSON.stringify(summary));
  const [r] = reports;
  assert.ok(r.shrink?.shrunk, r.shrink?.note);
  const original = JSON.parse(row.flagged_case!) as FuzzCase;
  const shrunk = JSON.parse(row.shrunk_case!) as FuzzCase;
  assert.ok(
    leafSteps(shrunk.steps).length < leafSteps(original.steps).length,
    `${leafSteps(shrunk.steps).length} < ${leafSteps(original.steps).length}`,
  );
  assert.equal(row.shrunk_signature, 'recall-miss:recall', 'held to the same flag');
  assert.match(row.shrink_note!, /^shrunk in \d+ run\(s\): \d+ → \d+ step\(s\)/);
  assert.ok(r.shrink!.runs <= 12, 'the shrink keeps to its budget');
  assert.equal(summary.shrunk, 1);
  // the shrunk case's own run is kept beside the original's evidence
  const kept = JSON.parse(readFileSync(join(r.cellDir, 'shrunk', 'case.json'), 'utf8')) as FuzzCase;
  assert.deepEqual(kept.steps, shrunk.steps, 'what the queue holds is what ran');
  assert.ok(!existsSync(join(r.cellDir, 'shrink')), 'candidates that did not reproduce keep nothing');

  const s = flagToScenario(row, decl, 'fuzz-shrunk');
  assert.ok(s.tags?.includes('shrunk'));
  const replayed = JSON.stringify(s.deterministic.violation?.steps);
  assert.ok(
    !replayed.includes(
      original.expects
        .filter((e) => !shrunk.expects.some((x) => JSON.stringify(x) === JSON.stringify(e)))
        .map((e) => ('text' in e ? e.text : ''))[0] ?? 'never',
    ),
    'a token the shrunk case dropped is not replayed',
  );
  const full = flagToScenario(row, decl, 'fuzz-original', { original: true });
  assert.ok(!full.tags?.includes('shrunk'));
  assert.ok(JSON.stringify(full.deterministic.violation?.steps).length > replayed.length);
});

test('a shrink that cannot raise the flag again keeps the original and says so', async (t) => {
  const mark = tempDir(t);
  mkdirSync(mark, { recursive: true });
  // the 2nd save of the whole run never answers: the case hangs, no smaller case run after it does
  const decl = localDecl('once', 'hang-at', { call_timeout_ms: 1000 });
  Object.assign(decl.server.env, { FUZZ_MARK: mark, FUZZ_HANG_AT: '2' });
  const { summary, reports, row } = await campaign(t, decl, { recipes: ['exact-duplicate'], shrinkRuns: 3 });
  assert.equal(summary.by_check.hang, 1, JSON.stringify(summary));
  const [r] = reports;
  assert.equal(r.shrink?.shrunk, undefined);
  assert.equal(r.shrink?.runs, 3);
  assert.match(r.shrink!.note, /^not shrunk: no smaller case raised hang in 3 run\(s\); the original case is kept$/);
  assert.equal(row.shrunk_case, null, 'no shrunk case it did not observe');
  assert.match(row.shrink_note!, /not shrunk/);
  assert.ok(!existsSync(join(r.cellDir, 'shrunk')));
  const s = flagToScenario(row, decl, 'fuzz-kept');
  assert.ok(!s.tags?.includes('shrunk'), 'export falls back to the original');
});
