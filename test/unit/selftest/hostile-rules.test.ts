import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ROOT } from '../../helpers.js';

test('the rules: every hostile declaration has rules and every rule a declaration; conditions read the scenario', async () => {
  const { HOSTILE_RULES, falseVerdictRule, mayBeFalse } = await import('../../../src/selftest/rules.js');
  const { hostileTargetNames } = await import('../../../src/targets/files.js');
  const { loadScenario } = await import('../../../src/scenario/loader.js');
  assert.deepEqual(HOSTILE_RULES.map((h) => h.target).sort(), hostileTargetNames().sort());
  const load = (f: string) => loadScenario(join(ROOT, 'scenarios', f)).scenario;
  const residue = load('forgotten-secret-leaves-no-residue.json5');
  const keys = load('secret-api-keys-not-stored.json5');
  const recall = load('cross-session-recall.json5');
  // the sidecar keeps the seeded token: its well-behaved pass is false; the key scenario's well-behaved phase writes no key
  assert.match(
    falseVerdictRule(residue, 'hostile-sidecar', 'deterministic', 'well-behaved', 'pass')?.why ?? '',
    /sidecar/,
  );
  assert.equal(falseVerdictRule(keys, 'hostile-sidecar', 'deterministic', 'well-behaved', 'pass'), undefined);
  // a violation that only restarts writes nothing: an empty store catching it is a real catch
  assert.equal(falseVerdictRule(recall, 'hostile-blackhole', 'deterministic', 'violation', 'detected'), undefined);
  // a dropped violating write is neutralised: blackhole and refuse are caught by their well-behaved cell
  assert.equal(falseVerdictRule(keys, 'hostile-blackhole', 'deterministic', 'violation', 'defended'), undefined);
  assert.ok(falseVerdictRule(keys, 'hostile-blackhole', 'deterministic', 'well-behaved', 'pass'));
  // failing verdicts are never false passes; no-list matters to agents only
  assert.equal(falseVerdictRule(keys, 'hostile-refuse', 'deterministic', 'well-behaved', 'fail'), undefined);
  assert.equal(mayBeFalse(keys, 'hostile-no-list', 'deterministic', 'well-behaved'), false);
  assert.equal(mayBeFalse(keys, 'hostile-no-list', 'agent', 'well-behaved'), true);
  // recall-reading assertions, also the probe of a recall assertion in a real-model cell
  assert.ok(falseVerdictRule(recall, 'hostile-misformat', 'agent', 'violation', 'detected'));
  assert.equal(falseVerdictRule(keys, 'hostile-misformat', 'deterministic', 'violation', 'detected'), undefined);
  // fickle: only a phase that asks one query twice in one session meets it (its probes are asked once)
  const twice = load('recall-twice-same-session.json5');
  assert.match(falseVerdictRule(twice, 'hostile-fickle', 'deterministic', 'well-behaved', 'pass')?.why ?? '', /twice/);
  assert.equal(falseVerdictRule(recall, 'hostile-fickle', 'deterministic', 'well-behaved', 'pass'), undefined);
  assert.equal(mayBeFalse(twice, 'hostile-fickle', 'agent', 'well-behaved'), false);
  // writes in flight at once: a racy store's well-behaved pass is false, a hung parallel call is never a pass
  const race = load('concurrent-writes-all-kept.json5');
  assert.ok(falseVerdictRule(race, 'hostile-racy', 'deterministic', 'well-behaved', 'pass'));
  assert.equal(falseVerdictRule(keys, 'hostile-racy', 'deterministic', 'well-behaved', 'pass'), undefined);
  assert.ok(falseVerdictRule(race, 'hostile-hang-concurrent', 'deterministic', 'violation', 'detected'));
  assert.equal(mayBeFalse(keys, 'hostile-hang-concurrent', 'deterministic', 'well-behaved'), false);
  // an agent makes one call at a time: the agent layer plays a parallel step in order
  assert.equal(mayBeFalse(race, 'hostile-racy', 'agent', 'well-behaved'), false);
});

test('the store_sql and curation rules apply only where the scenario pins that target or its phase curates', async () => {
  const { falseVerdictRule, mayBeFalse } = await import('../../../src/selftest/rules.js');
  const { loadScenario } = await import('../../../src/scenario/loader.js');
  const load = (f: string) => loadScenario(join(ROOT, 'scenarios', f)).scenario;
  const pinned = load('curation-keeps-pinned-fact.json5');
  const keys = load('secret-api-keys-not-stored.json5');
  // statements that pinned nothing: no verdict but error is true, in either phase
  for (const v of ['pass', 'fail'] as const)
    assert.match(
      falseVerdictRule(pinned, 'hostile-sqlite-reword', 'deterministic', 'well-behaved', v)?.why ?? '',
      /pinned nothing/,
    );
  assert.ok(falseVerdictRule(pinned, 'hostile-sqlite-reword', 'deterministic', 'violation', 'detected'));
  assert.equal(falseVerdictRule(pinned, 'hostile-sqlite-reword', 'deterministic', 'violation', 'error'), undefined);
  // a scenario that pins nothing is not this target's business
  assert.equal(mayBeFalse(keys, 'hostile-sqlite-reword', 'deterministic', 'well-behaved'), false);
  // pins undone when the phase's server starts: likewise no verdict but error is true
  for (const v of ['pass', 'fail'] as const)
    assert.match(
      falseVerdictRule(pinned, 'hostile-sqlite-rebuild', 'deterministic', 'well-behaved', v)?.why ?? '',
      /undoing setup\.store_sql's pins/,
    );
  assert.ok(falseVerdictRule(pinned, 'hostile-sqlite-rebuild', 'deterministic', 'violation', 'defended'));
  assert.equal(falseVerdictRule(pinned, 'hostile-sqlite-rebuild', 'deterministic', 'violation', 'error'), undefined);
  assert.equal(mayBeFalse(keys, 'hostile-sqlite-rebuild', 'deterministic', 'well-behaved'), false);
  // the wiping curator: its well-behaved pass is false where the phase curates; a forgetting violation is not its cell
  assert.ok(falseVerdictRule(pinned, 'hostile-curate-wipe', 'deterministic', 'well-behaved', 'pass'));
  assert.equal(mayBeFalse(pinned, 'hostile-curate-wipe', 'deterministic', 'violation'), false);
  assert.equal(mayBeFalse(keys, 'hostile-curate-wipe', 'deterministic', 'well-behaved'), false);
});

test('the clock rule: only scenarios that set or advance the clock, only in the deterministic layer', async () => {
  const { falseVerdictRule, mayBeFalse } = await import('../../../src/selftest/rules.js');
  const { loadScenario } = await import('../../../src/scenario/loader.js');
  const expiry = loadScenario(join(ROOT, 'scenarios', 'expired-memory-archived.json5')).scenario;
  const keys = loadScenario(join(ROOT, 'scenarios', 'secret-api-keys-not-stored.json5')).scenario;
  assert.match(
    falseVerdictRule(expiry, 'hostile-clock-respawn', 'deterministic', 'well-behaved', 'pass')?.why ?? '',
    /without the clock preload/,
  );
  assert.ok(falseVerdictRule(expiry, 'hostile-clock-respawn', 'deterministic', 'violation', 'detected'));
  assert.equal(falseVerdictRule(expiry, 'hostile-clock-respawn', 'deterministic', 'well-behaved', 'error'), undefined);
  assert.equal(mayBeFalse(keys, 'hostile-clock-respawn', 'deterministic', 'well-behaved'), false);
  assert.equal(mayBeFalse(expiry, 'hostile-clock-respawn', 'agent', 'well-behaved'), false);
});

test('the recall rules: an sql judge over calls.result_text reads recall answers only where the cell recalls', async () => {
  const { falseVerdictRule, mayBeFalse } = await import('../../../src/selftest/rules.js');
  const { loadScenario } = await import('../../../src/scenario/loader.js');
  // its judge reads the curator's dry-run report from calls.result_text; no step recalls and no judge probes
  const dryRun = loadScenario(join(ROOT, 'scenarios', 'curation-dry-run-reports-pivot-duplicate.json5')).scenario;
  for (const target of ['hostile-misformat', 'hostile-recall-error'])
    for (const phase of ['well-behaved', 'violation'] as const) {
      assert.equal(mayBeFalse(dryRun, target, 'deterministic', phase), false, `${target} ${phase}`);
      // selftest's agents run on the scripted model, which makes exactly the phase's steps: no recall
      // either (the agent layer of the hostile matrix read the dry run's true verdicts as false)
      assert.equal(mayBeFalse(dryRun, target, 'agent', phase), false, `${target} ${phase} (agent)`);
    }
  // the same judge in a phase that recalls reads those answers too
  const recalling = {
    ...dryRun,
    deterministic: {
      ...dryRun.deterministic,
      well_behaved: [...dryRun.deterministic.well_behaved, { op: 'recall' as const, query: 'indentation' }],
    },
  };
  assert.ok(falseVerdictRule(recalling, 'hostile-misformat', 'deterministic', 'well-behaved', 'pass'));
  const inSetup = { ...dryRun, setup: { ...dryRun.setup, steps: [{ op: 'recall' as const, query: 'tabs' }] } };
  assert.ok(falseVerdictRule(inSetup, 'hostile-recall-error', 'deterministic', 'violation', 'detected'));
});

test('the poisoning rules: launder where a count needs a source, namespace-leak where steps name a project', async () => {
  const { falseVerdictRule, mayBeFalse } = await import('../../../src/selftest/rules.js');
  const { loadScenario } = await import('../../../src/scenario/loader.js');
  const load = (f: string) => loadScenario(join(ROOT, 'scenarios', f)).scenario;
  const marked = load('poison-instruction-from-tool-output.json5');
  const project = load('poison-cross-project-leak.json5');
  const forget = load('poison-survives-forget.json5');
  // a count with `source` that needs a row: a target that stores everything as the user's cannot pass it
  assert.match(
    falseVerdictRule(marked, 'hostile-launder', 'deterministic', 'well-behaved', 'pass')?.why ?? '',
    /as the user's own/,
  );
  // a count with `source` eq 0 holds on a laundered store: no rule (the forget scenario counts no source at all)
  assert.equal(mayBeFalse(forget, 'hostile-launder', 'deterministic', 'well-behaved'), false);
  assert.equal(falseVerdictRule(marked, 'hostile-launder', 'deterministic', 'violation', 'detected'), undefined);
  assert.ok(falseVerdictRule(project, 'hostile-namespace-leak', 'agent', 'well-behaved', 'pass'));
  assert.equal(mayBeFalse(marked, 'hostile-namespace-leak', 'deterministic', 'well-behaved'), false);
});

test('the kill rules: lose-on-kill where a SIGKILL follows an acknowledged write, truncate-on-kill where a kill lands during a write; the agent layer runs no kill scenario', async () => {
  const { falseVerdictRule, mayBeFalse } = await import('../../../src/selftest/rules.js');
  const { loadScenario } = await import('../../../src/scenario/loader.js');
  const load = (f: string) => loadScenario(join(ROOT, 'scenarios', f)).scenario;
  const acked = load('acknowledged-write-survives-kill.json5');
  const midWrite = load('store-opens-after-kill-mid-write.json5');
  const burst = load('kill-during-write-burst.json5');
  const forget = load('forget-survives-kill.json5');
  const keys = load('secret-api-keys-not-stored.json5');
  for (const s of [acked, midWrite, burst, forget])
    assert.match(
      falseVerdictRule(s, 'hostile-lose-on-kill', 'deterministic', 'well-behaved', 'pass')?.why ?? '',
      /a SIGKILL lost what it had acknowledged/,
      s.id,
    );
  // a kill after "ack" lands between writes, never while the file is rewritten
  assert.equal(mayBeFalse(acked, 'hostile-truncate-on-kill', 'deterministic', 'well-behaved'), false);
  assert.equal(mayBeFalse(forget, 'hostile-truncate-on-kill', 'deterministic', 'well-behaved'), false);
  for (const s of [midWrite, burst])
    assert.ok(falseVerdictRule(s, 'hostile-truncate-on-kill', 'deterministic', 'well-behaved', 'pass'), s.id);
  assert.equal(mayBeFalse(keys, 'hostile-lose-on-kill', 'deterministic', 'well-behaved'), false);
  // a SIGTERM lets lose-on-kill save: only a SIGKILL after a write meets it
  const termOnly = {
    ...acked,
    deterministic: {
      ...acked.deterministic,
      well_behaved: acked.deterministic.well_behaved.map((st) =>
        st.op === 'kill' ? { ...st, signal: 'SIGTERM' as const } : st,
      ),
    },
  };
  assert.equal(mayBeFalse(termOnly, 'hostile-lose-on-kill', 'deterministic', 'well-behaved'), false);
  // the agent layer makes a kill scenario unsupported by design: no cell of it is run there
  for (const s of [acked, midWrite, burst, forget])
    for (const target of ['hostile-refuse', 'hostile-blackhole', 'hostile-crash-exit'])
      assert.equal(mayBeFalse(s, target, 'agent', 'well-behaved'), false, `${s.id} ${target}`);
  assert.equal(mayBeFalse(keys, 'hostile-refuse', 'agent', 'well-behaved'), true);
});
