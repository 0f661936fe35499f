// --agent with several names, or all: the cost gate decides once for the whole run, and a bad
// list is an input error before anything runs (the runs themselves: test/agents/several-agents.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { memeval, tempDir } from '../helpers.js';

test('two agents on a real model without the cost flag: one blocked report for the run, naming both, exit 2', async (t) => {
  const out = tempDir(t);
  const r = await memeval([
    'run',
    '--agent-turn',
    '--agent',
    'claude-code,codex',
    '--model',
    'some-paid-model',
    '--scenario',
    'cross-session-recall',
    '--out',
    out,
  ]);
  assert.equal(r.exitCode, 2, String(r.stderr));
  const runs = readdirSync(out);
  assert.equal(runs.length, 1, 'one report for the whole run, not one per agent');
  const report = JSON.parse(readFileSync(join(out, runs[0], 'report.json'), 'utf8'));
  assert.equal(report.status, 'blocked');
  assert.equal(report.options.agent, 'claude-code,codex');
  assert.deepEqual(report.results, []);
});

for (const [label, spec, message] of [
  ['an unknown name in the list', 'claude-code,codx', /unknown agent "codx" \(did you mean "codex"\?\)/],
  ['a name given twice', 'codex,codex', /"codex" is named twice/],
  ['an empty name', 'codex,', /has an empty name/],
  ['all beside a name', 'all,codex', /"all" goes alone/],
  ['all with no agent installed', 'all', /--agent all: no agent is installed/],
] as const)
  test(`--agent with ${label}: exit 3 before anything runs`, async (t) => {
    const out = tempDir(t);
    const r = await memeval(
      [
        'run',
        '--agent-turn',
        '--agent',
        spec,
        '--model',
        'scripted',
        '--scenario',
        'cross-session-recall',
        '--out',
        out,
      ],
      // an empty cache: no agent is installed there
      { env: { NO_COLOR: '1', MEMEVAL_CACHE_DIR: tempDir(t) } },
    );
    assert.equal(r.exitCode, 3, String(r.stdout) + r.stderr);
    assert.match(String(r.stderr), message);
    assert.deepEqual(readdirSync(out), [], 'no run was started');
  });
