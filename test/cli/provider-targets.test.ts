// The real memory servers (memorix 1.0.7 with embeddings and its formation LLM on, cipher 0.3.0)
// driven through memeval's model provider: no mock stands in for a memory server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadScenarios, scenarioFiles } from '../../src/scenario/loader.js';
import { loadTarget } from '../../src/targets/loader.js';
import { resolveTargetBin } from '../../src/targets/resolve-bin.js';
import { installTarget } from '../../src/targets/install-target.js';
import { runDeterministic } from '../../src/app/run.js';
import { openEvidence } from '../../src/evidence/open.js';
import { needsProvider } from '../../src/model/provider/cell.js';
import { BUILTIN_SCENARIOS } from '../../src/util/paths.js';
import type { CellResult } from '../../src/core/results.js';
import { tempDir } from '../helpers.js';

const TARGETS = ['memorix-provider', 'cipher'];

async function runProviderScenarios(
  t: Parameters<typeof tempDir>[0] & { diagnostic: (s: string) => void },
  keep: (tags: string[]) => boolean = () => true,
) {
  const targets = [];
  for (const name of TARGETS) {
    const { decl, file } = loadTarget(name);
    await installTarget(decl, (s) => t.diagnostic(s));
    targets.push({ decl, file, bin: resolveTargetBin(decl) });
  }
  // the poisoning family's provider scenario is judged on these targets by its own matrix
  // (docs/poisoning.md) and proven by selftest; this test covers the provider scenarios' findings
  const scenarios = loadScenarios(scenarioFiles(BUILTIN_SCENARIOS)).filter(
    (s) => needsProvider(s.scenario) && !s.scenario.tags.includes('memory-poisoning') && keep(s.scenario.tags),
  );
  return runDeterministic({ scenarios, targets, workers: 2, keep: false, outDir: tempDir(t) });
}

/** A cell's provider log with what differs by nature masked: times, and ids a server makes from the clock. */
function maskedProviderLog(runDir: string, r: CellResult): string[] {
  return readFileSync(join(runDir, r.cell_dir, 'provider.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const { ts: _ts, ms: _ms, held_ms: _held, ...rest } = JSON.parse(l) as Record<string, unknown>;
      return JSON.stringify(rest).replace(/\b1\d{12}\b/g, '<clock-id>');
    });
}

test('provider-backed targets: each scenario catches its defect or passes, every call is evidence, and a second run is identical', async (t) => {
  const first = await runProviderScenarios(t);
  const results = first.report.results;
  assert.equal(results.length, 9 * 2 * TARGETS.length, 'nine scenarios × two phases × two targets');
  const cell = (scenario: string, target: string, phase: string) => {
    const r = results.find((x) => x.scenario === scenario && x.target === target && x.phase === phase);
    assert.ok(r, `${scenario}/${target}/${phase} ran`);
    return r;
  };
  const verdicts = Object.fromEntries(results.map((r) => [`${r.scenario} ${r.target} ${r.phase}`, r.verdict]));
  t.diagnostic(JSON.stringify(verdicts, null, 1));
  for (const r of results) {
    assert.ok(
      !['error', 'undetected', 'invalid', 'unsupported'].includes(r.verdict),
      `${r.scenario}/${r.target}/${r.phase}: ${r.verdict} (${r.reason})`,
    );
    // the provider answered every request it got, and the evidence holds them
    const ev = openEvidence(join(first.runDir, r.cell_dir));
    try {
      const n = ev.db.prepare('SELECT count(*) FROM provider_calls').pluck().get() as number;
      assert.ok(n > 0, `${r.scenario}/${r.target}/${r.phase}: provider_calls is empty`);
      // every request without a scripted fault was answered
      assert.equal(
        ev.db.prepare('SELECT count(*) FROM provider_calls WHERE status <> 200 AND fault IS NULL').pluck().get(),
        0,
      );
    } finally {
      ev.close();
    }
  }

  // memorix with embeddings on: a search hit drops the memory from its index, so the second recall finds nothing
  const twice = cell('recall-twice-same-session', 'memorix-provider', 'well-behaved');
  assert.equal(twice.verdict, 'fail');
  assert.equal(twice.assertions.find((a) => a.name === 'both recalls find it')?.actual, 1);
  assert.equal(cell('recall-twice-same-session', 'cipher', 'well-behaved').verdict, 'pass');
  // memorix: the LLM's DELETE "evolves" #1 but leaves it active
  assert.equal(cell('contradiction-retires-old-memory', 'memorix-provider', 'well-behaved').verdict, 'fail');
  assert.equal(cell('contradiction-retires-old-memory', 'cipher', 'well-behaved').verdict, 'pass');
  // cipher: two stores in one wall-clock second get the same id; the second overwrites the first
  const clash = cell('paraphrase-merged-unrelated-kept', 'cipher', 'well-behaved');
  assert.equal(clash.verdict, 'fail');
  assert.equal(clash.assertions.find((a) => a.name === 'one active memory about the accounts store')?.actual, 0);
  // the formation LLM decides: its NOOP keeps one memory, its ADD stores a second
  for (const target of TARGETS) {
    assert.equal(cell('formation-llm-decides', target, 'well-behaved').verdict, 'pass', target);
    assert.equal(cell('formation-llm-decides', target, 'violation').verdict, 'detected', target);
    assert.equal(cell('vector-recall-without-shared-words', target, 'well-behaved').verdict, 'pass', target);
  }
  assert.equal(cell('paraphrase-merged-unrelated-kept', 'memorix-provider', 'violation').verdict, 'defended');
  // a secret in a memory reaches the provider of both servers
  for (const target of TARGETS) {
    const leak = cell('provider-never-sees-secrets', target, 'violation');
    assert.equal(leak.verdict, 'detected');
    assert.ok(
      Number(leak.assertions.find((a) => a.name === 'no provider request carries the secret')?.actual) >= 1,
      target,
    );
  }

  // provider faults: memorix keeps a memory whose embedding failed (and retries 429/5xx, honouring
  // Retry-After); cipher retries too, but when the embedding still fails it answers success and
  // stores nothing
  for (const s of [
    'provider-outage-write-not-lost',
    'provider-rate-limit-retried',
    'provider-bad-embedding-contained',
  ]) {
    assert.equal(cell(s, 'memorix-provider', 'well-behaved').verdict, 'pass', s);
    for (const target of TARGETS) assert.equal(cell(s, target, 'violation').verdict, 'detected', `${s} ${target}`);
  }
  assert.equal(cell('provider-rate-limit-retried', 'cipher', 'well-behaved').verdict, 'pass');
  for (const s of ['provider-outage-write-not-lost', 'provider-bad-embedding-contained']) {
    const lost = cell(s, 'cipher', 'well-behaved');
    assert.equal(lost.verdict, 'fail', s);
    assert.equal(lost.assertions[0]?.actual, 0, `${s}: cipher acknowledged the write and stored nothing`);
  }

  // determinism: the same run again gives the same provider requests and the same verdicts
  // (the fault scenarios are left out of the second run: cipher spends 20-35 s per cell retrying
  // them, and their verdicts and provider logs repeat too, checked when they were added)
  const second = await runProviderScenarios(t, (tags) => !tags.includes('faults'));
  const rerun = new Set(second.report.results.map((x) => x.scenario));
  assert.equal(rerun.size, 6, 'the six provider scenarios without faults ran again');
  for (const r of results.filter((x) => rerun.has(x.scenario))) {
    const again = second.report.results.find(
      (x) => x.scenario === r.scenario && x.target === r.target && x.phase === r.phase,
    )!;
    assert.equal(again.verdict, r.verdict, `${r.scenario}/${r.target}/${r.phase} verdict`);
    assert.deepEqual(
      maskedProviderLog(second.runDir, again),
      maskedProviderLog(first.runDir, r),
      `${r.scenario}/${r.target}/${r.phase} provider log`,
    );
  }
});
