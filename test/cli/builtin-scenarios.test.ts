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
  // Real findings on the default target, each with the verdicts it may read. server-memory loses
  // writes in flight at once (it reads, changes and writes back its whole JSONL file on every call,
  // without a lock; the burst a kill lands in is such writes too), so those phases race. It keeps no
  // source with a memory (an entity's observations are bare strings), so a poisoned page is stored
  // as the user's own word (docs/poisoning.md), and its substring search finds nothing for the
  // ranking questions (their violation phases are error: nothing observed).
  const noSource = (wellBehaved: string[], violation: string[]) => ({ wellBehaved, violation });
  const known: Record<string, string[]> = {
    'concurrent-writes-all-kept/well-behaved': ['fail', 'pass'],
    'kill-during-write-burst/well-behaved': ['fail', 'pass'],
  };
  for (const [id, v] of Object.entries({
    'poison-bridging-chain': noSource(['fail'], ['error']),
    'poison-in-metadata': noSource(['fail'], ['undetected']),
    'poison-instruction-from-tool-output': noSource(['fail'], ['undetected']),
    'poison-provenance-kept': noSource(['fail'], ['detected']),
    'poison-stuffed-outranks-fact': noSource(['fail'], ['error']),
    'poison-supersedes-trusted': noSource(['fail'], ['detected']),
    'poison-survives-restart': noSource(['fail'], ['undetected']),
  })) {
    known[`${id}/well-behaved`] = v.wellBehaved;
    known[`${id}/violation`] = v.violation;
  }
  const bad = report.results
    .filter(
      (r) =>
        (r.fails_run || known[`${r.scenario}/${r.phase}`]) && !known[`${r.scenario}/${r.phase}`]?.includes(r.verdict),
    )
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
    // projects are kept apart only on a target whose calls take one (test/cli/reference-target.test.ts runs it)
    if (r.scenario === 'poison-cross-project-leak') {
      assert.equal(r.verdict, 'unsupported', `${r.scenario}/${r.phase}`);
      assert.match(r.reason, /namespaces/);
      continue;
    }
    const allowed = known[`${r.scenario}/${r.phase}`];
    if (allowed) assert.ok(allowed.includes(r.verdict), `${r.scenario}/${r.phase}: ${r.verdict} (${r.reason})`);
    else if (r.phase === 'well-behaved') assert.equal(r.verdict, 'pass', `${r.scenario} well-behaved: ${r.reason}`);
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
