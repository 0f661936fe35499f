import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadScenarios, scenarioFiles } from '../../src/scenario/loader.js';
import { loadTarget } from '../../src/targets/loader.js';
import { resolveTargetBin } from '../../src/targets/resolve-bin.js';
import { installTarget } from '../../src/targets/install-target.js';
import { runDeterministic } from '../../src/app/run.js';
import { BUILTIN_SCENARIOS } from '../../src/util/paths.js';
import type { CellResult } from '../../src/core/results.js';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { faultyTarget, faultyTargetWithout, scenarioDir } from '../faulty.js';
import { memeval, tempDir, timeLimit } from '../helpers.js';
import { needsProvider } from '../../src/model/provider/cell.js';

// The real third-party servers, installed from npm into the cache (once; later runs reuse it).
const TARGETS = ['server-memory', 'memorix', 'mcp-memory-keeper', 'memories-sh', 'mcp-memory-libsql'];

test('scoreboard: the built-in scenarios run unchanged against every real target and catch the known defects', async (t) => {
  const targets = [];
  for (const name of TARGETS) {
    const { decl, file } = loadTarget(name);
    await installTarget(decl, (s) => t.diagnostic(s));
    targets.push({ decl, file, bin: resolveTargetBin(decl) });
  }
  // the poisoning family finds what these targets lack (no source kept, searches that find nothing
  // for a ranking question): its own matrix (docs/poisoning.md), selftest and builtin-scenarios judge it
  const scenarios = loadScenarios(scenarioFiles(BUILTIN_SCENARIOS)).filter(
    (s) => !s.scenario.tags.includes('memory-poisoning'),
  );
  const providerScenarios = new Set(scenarios.filter((s) => needsProvider(s.scenario)).map((s) => s.scenario.id));
  const { report } = await runDeterministic({ scenarios, targets, workers: 2, keep: false, outDir: tempDir(t) });
  const cell = (scenario: string, target: string, phase: CellResult['phase']) => {
    const r = report.results.find((x) => x.scenario === scenario && x.target === target && x.phase === phase);
    assert.ok(r, `${scenario}/${target}/${phase} ran`);
    return r;
  };
  const failing = (r: CellResult, name: string) => r.assertions.find((a) => a.name === name && a.outcome === 'fail');

  assert.equal(report.results.length, scenarios.length * 2 * TARGETS.length);
  const SEED_DROPPED = /^(setup memory "\w+" was not stored by the target(; |$))+$/;
  // a cell may check nothing only where the target lacks what the scenario needs, and says so
  const NOT_APPLICABLE = [/target lacks op\(s\): (curate|curate_dry_run|expire)/, /setup\.store_sql/, /own CLI/];
  const bad: string[] = [];
  for (const r of report.results) {
    // the instrument works everywhere: no broken harness, no violation that slips through; the one
    // error allowed is a real finding: memorix discarding an unrelated setup memory as a "duplicate".
    // Scenarios that script the model provider are unsupported here: none of these targets uses one.
    if (providerScenarios.has(r.scenario)) {
      if (r.verdict !== 'unsupported') bad.push(`${r.cell_id}: ${r.verdict}, not unsupported (no provider)`);
      continue;
    }
    // only memorix has an expiry sweep (the expire op); the others make the expiry scenario unsupported
    if (r.scenario === 'expired-memory-archived' && r.target !== 'memorix') {
      if (r.verdict !== 'unsupported' || !/target lacks op\(s\): expire/.test(r.reason))
        bad.push(`${r.cell_id}: ${r.verdict} (${r.reason}), not unsupported for want of expire`);
      continue;
    }
    if (r.verdict === 'unsupported' && NOT_APPLICABLE.some((re) => re.test(r.reason))) continue;
    const knownDrop = r.verdict === 'error' && r.target === 'memorix' && SEED_DROPPED.test(r.reason);
    if (!knownDrop && ['error', 'undetected', 'invalid', 'unsupported'].includes(r.verdict))
      bad.push(`${r.cell_id}: ${r.verdict} (${r.reason})`);
  }
  assert.deepEqual(bad, [], 'every cell is checked, or unsupported for a reason the target gives');
  const drops = report.results.filter((r) => r.verdict === 'error');
  assert.ok(
    drops.length > 0,
    'memorix drops at least one unrelated setup memory as a duplicate, and the scoreboard shows it',
  );
  assert.ok(drops.every((r) => r.fails_run));
  assert.deepEqual(report.matrix.targets, TARGETS);
  assert.equal(report.matrix.rows.length, scenarios.length);

  // memorix archives an observation past its 30-day retention on the shifted clock, and keeps it inside it
  assert.equal(cell('expired-memory-archived', 'memorix', 'well-behaved').verdict, 'pass');
  assert.equal(cell('expired-memory-archived', 'memorix', 'violation').verdict, 'detected');

  // memorix: the redactor skips a password cut short by the fact extractor ("password: hunte")
  const stub = cell('secret-passwords-not-stored', 'memorix', 'violation');
  assert.equal(stub.verdict, 'detected');
  assert.ok(failing(stub, 'no fragment of the password'), 'the truncated password stub is caught');
  assert.ok(stub.fails_run, 'memorix claims secret-redaction, so the leak fails the run');

  // memories.sh: a forgotten and vacuumed secret survives in the FTS segments and raw pages
  const fts = cell('forgotten-secret-leaves-no-residue', 'memories-sh', 'well-behaved');
  assert.equal(fts.verdict, 'fail');
  assert.match(
    String(failing(fts, 'token gone from every layer')?.actual),
    /memories_fts_data\.block.*raw bytes of local\.db/,
  );

  // mcp-memory-keeper: the deleted secret stays in the context_changes audit table
  const audit = cell('forgotten-secret-leaves-no-residue', 'mcp-memory-keeper', 'well-behaved');
  assert.equal(audit.verdict, 'fail');
  assert.match(String(failing(audit, 'token gone from every layer')?.actual), /context_changes\.(old|new)_value/);

  // the default target's exact-duplicate defence is seen as such
  assert.equal(cell('exact-duplicate-stored-once', 'server-memory', 'violation').verdict, 'defended');
  // memories.sh embeds every memory with the tiny model seeded in its fixture: it no longer tries the hub
  assert.ok(!report.warnings.some((w) => /memories-sh: network refused/.test(w)), report.warnings.join('\n'));
});

test(
  'scoreboard: unsupported cells are counted apart in the totals, the summary and the closing line, never as passed',
  { timeout: timeLimit(120_000) },
  async (t) => {
    const dir = tempDir(t);
    const full = faultyTarget(dir, 'faulty', 'ok');
    const lacking = faultyTargetWithout(dir, 'no-remember', ['remember']);
    const out = join(dir, 'runs');
    const r = await memeval([
      'run',
      '--scenarios',
      scenarioDir(dir, 2),
      '--target',
      `${full},${lacking}`,
      '--out',
      out,
    ]);
    const stdout = String(r.stdout);
    // some cells were checked (and passed): the run passes, with the unsupported ones shown apart
    assert.equal(r.exitCode, 0, stdout + r.stderr);
    assert.match(stdout, /\n4 passed, 0 failed, 4 unsupported$/);
    assert.match(stdout, /^passed \/ failed \/ unsupported +4 \/ 0 \/ 0 +0 \/ 0 \/ 4 *$/m);
    const report = JSON.parse(readFileSync(join(out, readdirSync(out)[0], 'report.json'), 'utf8'));
    assert.deepEqual(
      Object.fromEntries(
        Object.entries(report.matrix.totals).map(([k, v]) => [k, { ...(v as object), by_verdict: undefined }]),
      ),
      {
        faulty: { passed: 4, failed: 0, unsupported: 0, skipped: 0, by_verdict: undefined },
        'no-remember': { passed: 0, failed: 0, unsupported: 4, skipped: 0, by_verdict: undefined },
      },
    );
    assert.equal(report.summary.passed, 4);
    assert.equal(report.summary.unsupported, 4);
  },
);
