// An agent-only selftest plans no cell of a kill scenario (the agent layer cannot place a kill
// among an agent's own calls, on any target): the scenario is not proven, and the report says it
// is the layer's limit, not that no hostile target could expose it. The agent hostile matrix
// (test/agents/hostile-matrix.test.ts) accepts only layer limits as unproven.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { loadScenario } from '../../../src/scenario/loader.js';
import { SelftestFindings } from '../../../src/selftest/findings.js';
import { hostileTargetNames } from '../../../src/targets/files.js';
import { ROOT } from '../../helpers.js';

const report = (layer: 'agent' | 'deterministic', ids: string[]) =>
  new SelftestFindings(
    ids.map((id) => loadScenario(join(ROOT, 'scenarios', `${id}.json5`))),
    hostileTargetNames(),
    [layer],
  ).report({ narrowed: [], cellDirsGone: true, runDirs: [], durationMs: 0 });

test('a kill scenario in an agent-only selftest: not proven, for the layer’s limit, named', () => {
  const r = report('agent', ['acknowledged-write-survives-kill', 'store-opens-after-kill-mid-write']);
  for (const s of r.scenarios) {
    assert.equal(s.status, 'not-proven', s.id);
    assert.deepEqual(
      s.unproven.map((u) => u.why),
      [
        'the agent layer cannot run it on any target: the scenario kills the server at a point among its calls, which the agent layer cannot place among an agent’s own calls (the deterministic layer runs it)',
      ],
      s.id,
    );
  }
});

test('in the deterministic layer a hostile target can expose a kill scenario: no layer limit is reported', () => {
  const r = report('deterministic', ['acknowledged-write-survives-kill']);
  // nothing ran here (the run plans and reads the cells): only the check that some rule applies speaks
  assert.deepEqual(
    r.scenarios[0]!.unproven.map((u) => u.why),
    [],
  );
});
