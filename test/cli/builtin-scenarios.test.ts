// Every built-in scenario run against the default target (server-memory, spawned per cell):
// each phase passes or proves its teeth. Loading them is unit-tested in test/unit/scenario.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadScenarios, scenarioFiles } from '../../src/scenario/loader.js';
import { loadTarget, DEFAULT_TARGET } from '../../src/targets/loader.js';
import { resolveTargetBin } from '../../src/targets/resolve-bin.js';
import { runDeterministic } from '../../src/app/run.js';
import { BUILTIN_SCENARIOS } from '../../src/util/paths.js';
import { tempDir } from '../helpers.js';
import { needsProvider } from '../../src/model/provider/cell.js';

test('every built-in scenario has a violation phase and runs against the default target', async (t) => {
  const scenarios = loadScenarios(scenarioFiles(BUILTIN_SCENARIOS));
  for (const s of scenarios) assert.ok(s.scenario.deterministic.violation, `${s.scenario.id} has a violation phase`);
  const providerScenarios = new Set(scenarios.filter((s) => needsProvider(s.scenario)).map((s) => s.scenario.id));
  const pinning = new Set(scenarios.filter((s) => s.scenario.setup.store_sql).map((s) => s.scenario.id));
  assert.ok(pinning.size >= 3, 'at least 3 built-in scenarios pin the store with SQL');
  // scenarios judged by another target's own CLI (a command judge naming its bin)
  const target = loadTarget(DEFAULT_TARGET);
  const otherCli = new Set(
    scenarios
      .filter((s) =>
        s.scenario.assertions.some((a) => a.kind === 'command' && a.bin && a.bin !== target.decl.package?.bin),
      )
      .map((s) => s.scenario.id),
  );
  assert.ok(otherCli.size >= 2, "at least 2 built-in scenarios use a target's own CLI");
  assert.ok(providerScenarios.size >= 6, 'at least 6 built-in scenarios need the model provider');
  const out = tempDir(t);
  const { report } = await runDeterministic({
    scenarios,
    targets: [{ ...target, bin: resolveTargetBin(target.decl) }],
    workers: 2,
    keep: false,
    outDir: out,
  });
  // a real finding on the default target: server-memory loses writes in flight at once (it reads,
  // changes and writes back its whole JSONL file on every call, without a lock)
  const known = new Set(['concurrent-writes-all-kept/well-behaved']);
  const bad = report.results
    .filter((r) => r.fails_run && !known.has(`${r.scenario}/${r.phase}`))
    .map((r) => `${r.scenario}/${r.phase}: ${r.verdict} (${r.reason})`);
  assert.deepEqual(bad, [], 'no phase fails the run');
  for (const r of report.results) {
    // scenarios that script the model provider say nothing about a target that uses none (test/cli/provider-targets.test.ts runs them)
    if (providerScenarios.has(r.scenario)) {
      assert.equal(r.verdict, 'unsupported', `${r.scenario}/${r.phase} on a target without a provider`);
      assert.match(r.reason, /model provider/);
      continue;
    }
    // scenarios that pin an SQLite store (setup.store_sql) and curate: test/cli/store-sql.test.ts runs them
    if (pinning.has(r.scenario)) {
      assert.equal(r.verdict, 'unsupported', `${r.scenario}/${r.phase} on a JSONL target without a curator`);
      assert.match(r.reason, /lacks op\(s\): curate|setup\.store_sql/);
      continue;
    }
    if (otherCli.has(r.scenario)) {
      assert.equal(r.verdict, 'unsupported', `${r.scenario}/${r.phase} on a target without that CLI`);
      assert.match(r.reason, /own CLI/);
      continue;
    }
    // the expiry scenario needs the target's expiry sweep, which server-memory does not have
    if (r.scenario === 'expired-memory-archived') {
      assert.equal(r.verdict, 'unsupported', `${r.scenario}/${r.phase}`);
      assert.match(r.reason, /target lacks op\(s\): expire/);
      continue;
    }
    if (r.phase === 'well-behaved')
      assert.equal(
        r.verdict,
        known.has(`${r.scenario}/${r.phase}`) ? 'fail' : 'pass',
        `${r.scenario} well-behaved: ${r.reason}`,
      );
    // each scenario proves its teeth: the violation is caught or defended, never missed
    else assert.ok(['detected', 'defended'].includes(r.verdict), `${r.scenario} violation was ${r.verdict}`);
    assert.equal(r.fixture, 'removed');
  }
  assert.equal(report.results.length, scenarios.length * 2);
  // server-memory drops exact duplicate observations: the scenario sees that as a defence
  assert.equal(
    report.results.find((r) => r.scenario === 'exact-duplicate-stored-once' && r.phase === 'violation')?.verdict,
    'defended',
  );
  assert.equal(
    report.results.find((r) => r.scenario === 'secret-passwords-not-stored' && r.phase === 'violation')?.verdict,
    'detected',
  );
});
