import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { loadScenario, loadScenarios, scenarioFiles } from '../../../src/scenario/loader.js';
import { loadTarget, DEFAULT_TARGET } from '../../../src/targets/loader.js';
import { resolveTargetBin } from '../../../src/targets/resolve-bin.js';
import { runDeterministic } from '../../../src/app/run.js';
import { BUILTIN_SCENARIOS } from '../../../src/util/paths.js';
import { tempDir } from '../../helpers.js';
import { needsProvider } from '../../../src/model/provider/cell.js';
import { wellBehavedCatchesBlackhole } from '../../../src/scenario/exercise.js';

// every file in the folder, not a hand-kept list; suites of their own live in subfolders (recall/)
const files = readdirSync(BUILTIN_SCENARIOS, { withFileTypes: true })
  .filter((e) => e.isFile())
  .map((e) => join(BUILTIN_SCENARIOS, e.name));
const suites = readdirSync(BUILTIN_SCENARIOS, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => join(BUILTIN_SCENARIOS, e.name));

test('every file under scenarios/ is a scenario that validates and whose id is its file name', () => {
  assert.ok(files.length >= 10, `at least 10 built-in scenarios, found ${files.length}`);
  assert.deepEqual(scenarioFiles(BUILTIN_SCENARIOS), [...files].sort(), 'only .json/.json5 files live in scenarios/');
  for (const f of files) assert.equal(loadScenario(f).scenario.id, basename(f, extname(f)));
  for (const dir of suites) assert.ok(loadScenarios(scenarioFiles(dir)).length > 0, `${dir} holds scenarios that validate`);
});

test('every built-in well-behaved phase fails a target that accepts writes and keeps nothing: seeded memories, or an assertion an empty store fails', () => {
  const all = [...loadScenarios(scenarioFiles(BUILTIN_SCENARIOS)), ...suites.flatMap((d) => loadScenarios(scenarioFiles(d)))];
  assert.deepEqual(all.filter((s) => !wellBehavedCatchesBlackhole(s.scenario)).map((s) => s.scenario.id), []);
});

test('every built-in scenario has a violation phase and runs against the default target', async (t) => {
  const scenarios = loadScenarios(scenarioFiles(BUILTIN_SCENARIOS));
  for (const s of scenarios) assert.ok(s.scenario.deterministic.violation, `${s.scenario.id} has a violation phase`);
  const providerScenarios = new Set(scenarios.filter((s) => needsProvider(s.scenario)).map((s) => s.scenario.id));
  assert.ok(providerScenarios.size >= 6, 'at least 6 built-in scenarios need the model provider');
  const target = loadTarget(DEFAULT_TARGET);
  const out = tempDir(t);
  const { report } = await runDeterministic({ scenarios, targets: [{ ...target, bin: resolveTargetBin(target.decl) }], workers: 2, keep: false, outDir: out });
  const bad = report.results.filter((r) => r.fails_run).map((r) => `${r.scenario}/${r.phase}: ${r.verdict} (${r.reason})`);
  assert.deepEqual(bad, [], 'no phase fails the run');
  for (const r of report.results) {
    // scenarios that script the model provider say nothing about a target that uses none (test/provider-targets.test.ts runs them)
    if (providerScenarios.has(r.scenario)) {
      assert.equal(r.verdict, 'unsupported', `${r.scenario}/${r.phase} on a target without a provider`);
      assert.match(r.reason, /model provider/);
      continue;
    }
    if (r.phase === 'well-behaved') assert.equal(r.verdict, 'pass', `${r.scenario} well-behaved`);
    // each scenario proves its teeth: the violation is caught or defended, never missed
    else assert.ok(['detected', 'defended'].includes(r.verdict), `${r.scenario} violation was ${r.verdict}`);
    assert.equal(r.fixture, 'removed');
  }
  assert.equal(report.results.length, scenarios.length * 2);
  // server-memory drops exact duplicate observations: the scenario sees that as a defence
  assert.equal(report.results.find((r) => r.scenario === 'exact-duplicate-stored-once' && r.phase === 'violation')?.verdict, 'defended');
  assert.equal(report.results.find((r) => r.scenario === 'secret-passwords-not-stored' && r.phase === 'violation')?.verdict, 'detected');
});
