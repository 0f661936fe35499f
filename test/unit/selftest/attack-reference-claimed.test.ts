/**
 * Attack: selftest's "fails a correct server" reads the reference target's violation cell as fine
 * when it is `detected`, even where the reference claims the scenario's defence. Such a cell
 * fails the run (a claimed defence only detected), so `memeval run --target reference` exits 1
 * blaming the correct server while `memeval selftest` calls the scenario proven and exits 0.
 * Repro: a defend-or-detect scenario with `defence: "exact-dedupe"` whose violation writes the
 * duplicate and one more memory mentioning the counted word ("Berlin"), with `count contains
 * "Berlin" eq 1`: the reference stores two rows, `detected`, "claims exact-dedupe, only detected".
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readReferenceCell, type ProofCell } from '../../../src/selftest/proof.ts';

test('a reference violation cell that fails the run (claimed defence only detected) is a miss', () => {
  const cell = {
    scenario: 'dedupe-detects',
    target: 'reference',
    layer: 'deterministic',
    phase: 'violation',
    verdict: 'detected',
    reason: 'caught by: stored once',
    claimed: true,
  } as ProofCell;
  const read = readReferenceCell(cell);
  assert.ok(
    read && 'miss' in read,
    `the correct server's run fails on this cell, but selftest read it as ${JSON.stringify(read)}`,
  );
});

test('a reference violation cell detected where the reference claims nothing is not a miss', () => {
  const cell = {
    scenario: 's',
    target: 'reference',
    layer: 'deterministic',
    phase: 'violation',
    verdict: 'detected',
    reason: 'caught by: x',
    claimed: false,
  } as ProofCell;
  assert.equal(readReferenceCell(cell), null);
});
