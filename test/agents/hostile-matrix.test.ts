/**
 * The hostile-target matrix in the agent layer: every built-in scenario against every hostile
 * target through one real agent, codex, with the scripted model (the deterministic layer is in
 * test/cli/hostile-matrix.test.ts). Codex is the cheapest agent per cell, and it stops servers as
 * agents do: it closes stdin, signals, and kills memeval's proxy.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memeval, timeLimit } from '../helpers.js';
import { assertCoverage, falsePassLine, parseSelftest } from '../selftest-report.js';

const ENV = { NO_COLOR: '1', FORCE_COLOR: '0', MEMEVAL_CACHE_DIR: process.env.MEMEVAL_CACHE_DIR ?? '' };
/**
 * why a cell is unsupported in the agent layer whatever the target (src/cell/wall-clock.ts), or
 * why no cell of a scenario is planned there (a kill: src/selftest/findings.ts)
 */
const LAYER_CANNOT_RUN = /which the agent layer cannot place (between|in)|the agent layer cannot run it on any target/;
/** the unproven entry every scenario of a narrowed selftest gets (src/app/selftest.ts) */
const NARROWED = /: a scenario is proven only over all of them$/;
/** agent cells wait on the agent's and the proxy's start more than they compute */
const AGENT_WORKERS = '4';

test(
  'agent layer (codex, scripted model): no built-in scenario passes falsely against any hostile target',
  { timeout: timeLimit(20 * 60_000) },
  async (t) => {
    const r = await memeval(
      // the reference target and the broken inputs are the deterministic layer's (test/cli/hostile-matrix.test.ts)
      [
        'selftest',
        '--json',
        '--workers',
        AGENT_WORKERS,
        '--layer',
        'agent',
        '--agent',
        'codex',
        '--install',
        '--no-reference',
        '--no-mutations',
      ],
      {
        env: ENV,
        timeout: timeLimit(20 * 60_000),
      },
    );
    const rep = parseSelftest(String(r.stdout), String(r.stderr));
    t.diagnostic(
      `${rep.cells} agent cell(s) in ${Math.round(rep.duration_ms / 1000)} s: ${JSON.stringify(rep.by_verdict)}`,
    );
    await assertCoverage(rep, 'agent');
    assert.deepEqual(rep.false_passes.map(falsePassLine), []);
    assert.deepEqual(rep.toothless, []);
    assert.deepEqual(rep.fails_correct_server, []);
    assert.deepEqual(rep.narrowed, [
      'without the reference target (--no-reference)',
      "without memeval's broken inputs (--no-mutations)",
    ]);
    // Narrowed, no scenario is proven; a cell stays unproven here only where the agent layer itself
    // cannot run it (for every target, real ones too): any other is a hostile target that tested nothing.
    const notLayerLimits = rep.scenarios.flatMap((s) =>
      s.unproven
        .filter((u) => !LAYER_CANNOT_RUN.test(u.why) && !NARROWED.test(u.why))
        .map((u) => `${s.id} × ${u.target} (${u.phase}): ${u.why}`),
    );
    assert.deepEqual(notLayerLimits, []);
    assert.equal(r.exitCode, 4, String(r.stderr));
  },
);
