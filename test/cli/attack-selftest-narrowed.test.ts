/**
 * Attack: `memeval selftest` narrowed. `--target hostile-refuse` (or `--no-reference`, or
 * `--no-mutations`) runs a part of the proof, and still prints "proven" and exits 0. A scenario
 * whose only assertion holds on an empty store (a blackhole target passes it: toothless in a full
 * selftest) is "proven" against one hostile target that refuses every call. The help says "exit 0
 * every scenario proven" and "proven in both directions"; a narrowed selftest proved neither
 * direction in full, so it must not say proven and exit 0 (4: not proven, naming what was left out).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { memeval, scenario, tempDir, timeLimit, writeJson } from '../helpers.js';

function toothless(dir: string): string {
  const sc = join(dir, 'scenarios');
  mkdirSync(sc);
  writeJson(
    join(sc, 'holds-on-nothing.json5'),
    scenario('holds-on-nothing', {
      deterministic: { well_behaved: [{ op: 'remember', content: 'User prefers vitest' }], violation: null },
      // holds on a store that kept nothing: a blackhole passes it
      assertions: [{ kind: 'count', name: 'no jest', phase: 'well-behaved', contains: 'jest', op: 'eq', value: 0 }],
    }),
  );
  return sc;
}

test('the full selftest finds the scenario toothless (the control)', { timeout: timeLimit(180_000) }, async (t) => {
  const sc = toothless(tempDir(t));
  const r = await memeval(['selftest', '--scenarios', sc, '--no-mutations']);
  assert.equal(r.exitCode, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /TOOTHLESS/);
});

test(
  'selftest --target hostile-refuse does not call a toothless scenario proven, nor exit 0',
  { timeout: timeLimit(120_000) },
  async (t) => {
    const sc = toothless(tempDir(t));
    const r = await memeval(['selftest', '--scenarios', sc, '--target', 'hostile-refuse']);
    assert.notEqual(r.exitCode, 0, `narrowed to one hostile target, selftest exited 0: ${r.stdout}`);
    assert.doesNotMatch(r.stdout, /^proven\s/m, r.stdout);
  },
);

test(
  'selftest --no-reference does not say proven in both directions, nor exit 0',
  { timeout: timeLimit(180_000) },
  async (t) => {
    const dir = tempDir(t);
    const sc = join(dir, 'scenarios');
    mkdirSync(sc);
    // fails every correct server: the reference stores it once, the assertion wants two
    writeJson(
      join(sc, 'blames-correct.json5'),
      scenario('blames-correct', {
        deterministic: { well_behaved: [{ op: 'remember', content: 'User prefers vitest' }], violation: null },
        assertions: [{ kind: 'count', name: 'twice', phase: 'well-behaved', contains: 'vitest', op: 'eq', value: 2 }],
      }),
    );
    const r = await memeval(['selftest', '--scenarios', sc, '--no-reference', '--no-mutations']);
    assert.notEqual(r.exitCode, 0, `without the reference target, selftest exited 0: ${r.stdout}`);
  },
);
