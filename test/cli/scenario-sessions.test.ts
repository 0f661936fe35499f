import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { memeval, scenario, tempDir, writeJson } from '../helpers.ts';

// The scripted model plays one restart-separated part of the script per agent session: a
// scenario whose sessions and restarts disagree is refused before anything runs.

test("real_model sessions that do not match the script's restarts are a validation error (exit 3)", async (t) => {
  const dir = join(tempDir(t), 'scenarios');
  mkdirSync(dir);
  const file = writeJson(
    join(dir, 'mismatch.json5'),
    scenario('mismatch', {
      deterministic: {
        well_behaved: [
          { op: 'remember', content: 'User prefers dark mode' },
          { op: 'restart' },
          { op: 'recall', query: 'dark mode' },
        ],
        violation: null,
      },
      real_model: { sessions: [{ prompts: ['I prefer dark mode. What do I prefer?'] }] },
      assertions: [{ kind: 'count', name: 'dark mode once', phase: 'both', contains: 'dark mode', op: 'eq', value: 1 }],
    }),
  );
  const v = await memeval(['validate', dir]);
  assert.equal(v.exitCode, 3, v.stdout + v.stderr);
  assert.match(
    v.stdout + v.stderr,
    /deterministic\.well_behaved: 2 session\(s\) \(1 restart step\(s\)\) but real_model\.sessions has 1/,
  );
  assert.ok((v.stdout + v.stderr).includes(file));
  const r = await memeval([
    'run',
    '--agent-turn',
    '--agent',
    'claude-code',
    '--model',
    'scripted',
    '--scenarios',
    dir,
    '--out',
    tempDir(t),
  ]);
  assert.equal(r.exitCode, 3, 'refused before anything runs');
  assert.match(r.stderr, /real_model\.sessions has 1/);
});
