import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { loadScenario, loadScenarios, scenarioFiles } from '../../../src/scenario/loader.js';
import { BUILTIN_SCENARIOS } from '../../../src/util/paths.js';
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
  for (const dir of suites)
    assert.ok(loadScenarios(scenarioFiles(dir)).length > 0, `${dir} holds scenarios that validate`);
});

test('every built-in well-behaved phase fails a target that accepts writes and keeps nothing: seeded memories, or an assertion an empty store fails', () => {
  const all = [
    ...loadScenarios(scenarioFiles(BUILTIN_SCENARIOS)),
    ...suites.flatMap((d) => loadScenarios(scenarioFiles(d))),
  ];
  assert.deepEqual(
    all.filter((s) => !wellBehavedCatchesBlackhole(s.scenario)).map((s) => s.scenario.id),
    [],
  );
});
