/**
 * Issue 31: `--scenario 'recall-*'` did not reach the scenarios in scenarios/recall/. A selection
 * finds every built-in scenario by id wherever its file lives; with no selection a run keeps to
 * the folder it was given.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { loadSelected } from '../../../src/app/load.js';
import { BUILTIN_SCENARIOS } from '../../../src/util/paths.js';
import { InputError } from '../../../src/util/errors.js';

const stems = (dir: string) =>
  readdirSync(dir)
    .filter((f) => /\.json5?$/.test(f))
    .map((f) => basename(f, extname(f)));

test("--scenario 'recall-*' finds the built-in recall scenarios in scenarios/ and in scenarios/recall/", () => {
  const ids = loadSelected(BUILTIN_SCENARIOS, { ids: ['recall-*'] }).map((s) => s.scenario.id);
  const expected = [...stems(BUILTIN_SCENARIOS), ...stems(join(BUILTIN_SCENARIOS, 'recall'))].filter((id) =>
    id.startsWith('recall-'),
  );
  assert.ok(stems(join(BUILTIN_SCENARIOS, 'recall')).length > 0, 'the recall suite has scenarios');
  assert.deepEqual([...ids].sort(), [...expected].sort());
});

test('a plain id of a suite scenario is found; the suite name as a folder works as before', () => {
  assert.deepEqual(
    loadSelected(BUILTIN_SCENARIOS, { ids: ['recall-relevant'] }).map((s) => s.scenario.id),
    ['recall-relevant'],
  );
  assert.equal(loadSelected('recall', { ids: ['recall-relevant'] }).length, 1);
});

test('no selection keeps to the folder itself; an id that is nowhere is still exit 3 with the nearest name', () => {
  const all = loadSelected(BUILTIN_SCENARIOS, {}).map((s) => s.scenario.id);
  assert.deepEqual([...all].sort(), stems(BUILTIN_SCENARIOS).sort());
  assert.throws(
    () => loadSelected(BUILTIN_SCENARIOS, { ids: ['recall-relevent'] }),
    (e) => e instanceof InputError && e.exit === 3 && /did you mean "recall-relevant"/.test(e.message),
  );
});
