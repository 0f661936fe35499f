// A kill `after: "ack"` first in a phase follows what setup left running: the phase runs on the
// session that ran `setup.steps`, so a setup step that wrote is the write it kills right after.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadScenarioDir } from '../../../src/app/load.js';
import { InputError } from '../../../src/util/errors.js';
import { scenario, scenarioFolder, tempDir } from '../../kit.ts';

const durable = [{ kind: 'durable', name: 'kept', phase: 'well-behaved' }];

function problems(dir: string): string[] {
  try {
    loadScenarioDir(dir);
    return [];
  } catch (e) {
    assert.ok(e instanceof InputError, String(e));
    return e.problems;
  }
}

test('a kill after "ack" first in a phase, right after a setup step that wrote, loads', (t) => {
  const s = scenario('kill-after-setup-write', {
    setup: { memories: [], steps: [{ op: 'remember', content: 'User prefers dark mode' }] },
    deterministic: {
      well_behaved: [
        { op: 'kill', after: 'ack' },
        { op: 'recall', query: 'dark mode' },
      ],
      violation: null,
    },
    assertions: durable,
  });
  assert.deepEqual(problems(scenarioFolder(tempDir(t), [s])), []);
});

test('after a setup step that only read, it is still refused', (t) => {
  const s = scenario('kill-after-setup-read', {
    setup: { memories: [], steps: [{ op: 'recall', query: 'dark mode' }] },
    deterministic: {
      well_behaved: [
        { op: 'kill', after: 'ack' },
        { op: 'recall', query: 'dark' },
      ],
      violation: null,
    },
    assertions: durable,
  });
  const ps = problems(scenarioFolder(tempDir(t), [s]));
  assert.equal(ps.length, 1, ps.join('\n'));
  assert.match(ps[0]!, /deterministic\.well_behaved\[0\]\.after: .*the step before it is recall/);
});
