import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { localDecl, writeDecl } from '../fuzz-helpers.ts';
import { runInline, tempDir } from '../kit.ts';
import { ROOT } from '../helpers.ts';
import { runCampaign } from '../../src/fuzz/campaign.ts';
import { FlagStore } from '../../src/fuzz/flags.ts';
import { flagToScenario } from '../../src/fuzz/export.ts';
import { DEFAULT_CHECK_SETTINGS } from '../../src/fuzz/settings.ts';
import { resolveTargetBin } from '../../src/targets/resolve-bin.ts';
import { loadScenarios, scenarioFiles } from '../../src/scenario/loader.ts';
import { targetSchema } from '../../src/targets/schema.ts';

// itemised recall results, so a result holding the token is told from an echo of the query
const itemised = (d: ReturnType<typeof localDecl>) =>
  targetSchema.parse({ ...d, recall_results: { regex: '^#\\d+ .+$', empty: { text: 'no results' } } });

test('a finding flagged under --assume-claim exports as a scenario held to that claim: it fails on the target that produced it', async (t) => {
  const dir = tempDir(t);
  // says it saved and keeps nothing: every concurrent write is lost, and no claim is stated
  const decl = itemised(localDecl('lossy', 'store-nothing'));
  const flags = new FlagStore(join(dir, 'flags.db'));
  t.after(() => flags.close());
  const summary = await runCampaign({
    decl,
    bin: resolveTargetBin(decl),
    scenarios: loadScenarios(scenarioFiles(join(ROOT, 'scenarios'))),
    seed: 'assumed',
    budget: 1,
    recipes: ['concurrent'],
    flags,
    history: false,
    outDir: join(dir, 'out'),
    keep: false,
    settings: { ...DEFAULT_CHECK_SETTINGS, assumeClaims: ['recall'] },
  });
  assert.equal(summary.by_check['recall-miss'], 1, JSON.stringify(summary));
  const s = flagToScenario(flags.list()[0], decl, 'fuzz-lossy-assumed');
  assert.equal(s.deterministic.violation?.defence, 'recall');
  assert.equal(s.deterministic.violation?.assume_claim, true, 'the scenario carries the assumed claim');

  const lossy = await runInline(t, { scenarios: [s], targets: [writeDecl(dir, decl)] });
  const v = lossy.cell('fuzz-lossy-assumed', 'violation');
  assert.equal(v.verdict, 'detected', JSON.stringify(v));
  assert.equal(v.fails_run, true, 'detected on a scenario held to the claim fails the run, claimed or not');

  // a server that keeps its writes defends the same scenario: the assumed claim blames no correct server
  const keeper = await runInline(t, {
    scenarios: [s],
    targets: [writeDecl(join(dir, 'out'), itemised(localDecl('lossy', '')))],
  });
  assert.equal(
    keeper.cell('fuzz-lossy-assumed', 'violation').verdict,
    'defended',
    JSON.stringify(keeper.cell('fuzz-lossy-assumed', 'violation')),
  );
  assert.equal(keeper.exitCode, 0, keeper.output);
});
