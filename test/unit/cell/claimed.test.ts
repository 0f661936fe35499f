import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cellBase } from '../../../src/cell/result.ts';
import { replayDriver } from '../../../src/drive/replay.ts';
import { failsRun } from '../../../src/judge/verdict.ts';
import { scenarioSchema } from '../../../src/scenario/schema.ts';
import { targetSchema } from '../../../src/targets/schema.ts';

const decl = targetSchema.parse({
  name: 'claims-forget',
  description: 'a target that claims forget and secret-redaction',
  server: { command: 'true' },
  store: { format: 'sqlite', path: '{{data}}/s.db' },
  views: { memories: 'SELECT 1 AS id, 1 AS content, 1 AS category, 1 AS source, 0 AS is_deleted' },
  ops: { remember: [{ tool: 'save', args: { text: '{{content}}' } }] },
  claims: ['forget', 'secret-redaction'],
});

const scenario = (defence: string, expectation: string) =>
  scenarioSchema.parse({
    schema_version: 1,
    id: 'x',
    title: 't',
    description: 'd',
    deterministic: {
      well_behaved: [{ op: 'remember', content: 'User prefers tabs' }],
      violation: { expectation, defence, steps: [{ op: 'recall', query: 'tabs' }] },
    },
    assertions: [{ kind: 'count', name: 'kept', phase: 'both', contains: 'tabs', op: 'eq', value: 1 }],
  });

test('a claimed defence fails the run when only detected, but only where a server could defend (fails on main before this change)', () => {
  const detectOnly = scenario('forget', 'detect');
  const base = cellBase('c', detectOnly, decl, '1', replayDriver(detectOnly, 'violation'), 'd');
  // an agent that never called forget: no server can refuse that, so detected is the right verdict
  assert.equal(base.claimed, false);
  assert.equal(failsRun('detected', base.claimed), false);
  const defendable = scenario('secret-redaction', 'defend-or-detect');
  const b2 = cellBase('c', defendable, decl, '1', replayDriver(defendable, 'violation'), 'd');
  assert.equal(b2.claimed, true);
  assert.equal(failsRun('detected', b2.claimed), true);
});
