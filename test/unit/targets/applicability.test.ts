import { test } from 'node:test';
import assert from 'node:assert/strict';
import { storeUnsupported } from '../../../src/targets/applicability.js';
import { scenarioSchema, type Scenario } from '../../../src/scenario/schema.js';
import { targetSchema, type TargetDecl } from '../../../src/targets/schema.js';
import { scenario } from '../../helpers.js';

const decl = (store: Record<string, unknown>): TargetDecl =>
  targetSchema.parse({
    name: 't',
    description: 'a target',
    server: { command: 'node' },
    store,
    views: { memories: 'SELECT 1' },
    ops: { remember: [{ tool: 'save', args: { text: '{{content}}' } }] },
  });
const withRecall = (recall: Record<string, unknown>): Scenario =>
  scenarioSchema.parse(
    scenario('s', {
      assertions: [{ kind: 'recall', name: 'r', phase: 'both', query: 'dark', ...recall }],
    }),
  );

test('a process-only store memeval chose: recall assertions are unsupported', () => {
  assert.match(storeUnsupported(withRecall({ contains: 'dark' }), decl({ format: 'none' })) ?? '', /process only/);
});

test('a server that forgets on exit as its users run it: a recall that must find something is judged', () => {
  assert.equal(
    storeUnsupported(withRecall({ contains: 'dark' }), decl({ format: 'none', forgets_on_exit: true })),
    undefined,
  );
});

test('a server that forgets on exit: a recall that must not find something would hold vacuously, so it is unsupported', () => {
  assert.match(
    storeUnsupported(withRecall({ not_contains: 'dark' }), decl({ format: 'none', forgets_on_exit: true })) ?? '',
    /without checking/,
  );
});
