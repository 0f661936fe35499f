import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadTarget } from '../../../src/targets/loader.js';
import { targetSchema } from '../../../src/targets/schema.js';
import { scenarioSchema, type Scenario } from '../../../src/scenario/schema.js';
import { checkWiring } from '../../../src/scenario/wiring.js';
import { needsProvider, providerConfig, providerUnsupported, usesProvider } from '../../../src/model/provider/cell.js';
import { scenario } from '../../helpers.js';

const withProvider = (over: Record<string, unknown> = {}): Scenario =>
  scenarioSchema.parse({
    ...scenario('p'),
    setup: {
      memories: [{ ref: 'db', content: 'We use Postgres' }],
      similarity: [{ a: '$ref:db', b: 'relational store', cosine: 0.95 }],
    },
    provider: {
      rules: [
        { contains: ['Consolidation', '$ref:db'], answer: 'NOOP', phase: 'well-behaved' },
        { name: 'v', contains: 'Consolidation', answer: 'ADD', phase: 'violation' },
      ],
    },
    ...over,
  });

test('a declaration uses the provider exactly when {{provider}} appears where it is filled', () => {
  assert.equal(usesProvider(loadTarget('memorix-provider').decl), true);
  assert.equal(usesProvider(loadTarget('cipher').decl), true, 'in a fixture file and in env');
  for (const name of ['memorix', 'server-memory', 'mcp-memory-keeper', 'memories-sh', 'mcp-memory-libsql'])
    assert.equal(usesProvider(loadTarget(name).decl), false, name);
});

test('a scenario that scripts or reads the provider is unsupported on a target without one', () => {
  const s = withProvider();
  assert.equal(needsProvider(s), true);
  assert.match(providerUnsupported(s, loadTarget('server-memory').decl) ?? '', /model provider/);
  assert.equal(providerUnsupported(s, loadTarget('cipher').decl), undefined);
  const reads = scenarioSchema.parse({
    ...scenario('r'),
    assertions: [
      { kind: 'sql', name: 'n', phase: 'both', query: 'SELECT count(*) FROM provider_calls', op: 'eq', value: 0 },
    ],
  });
  assert.equal(needsProvider(reads), true, 'reading provider_calls needs a provider too');
  assert.equal(needsProvider(scenarioSchema.parse(scenario('plain'))), false);
});

test('the cell config: $ref resolved, rules of this phase first, then the target rules, scenario default over target default', () => {
  const decl = loadTarget('memorix-provider').decl;
  const wb = providerConfig(withProvider(), decl, 'well-behaved');
  assert.deepEqual(wb.similarity, [{ a: 'We use Postgres', b: 'relational store', cosine: 0.95 }]);
  assert.deepEqual(wb.rules[0], {
    name: 'scenario rule 0',
    contains: ['Consolidation', 'We use Postgres'],
    capture: undefined,
    hold: undefined,
    answer: 'NOOP',
  });
  assert.equal(wb.rules.length, 1 + decl.provider.rules.length);
  assert.equal(wb.default, decl.provider.default);
  const v = providerConfig(
    withProvider({
      provider: { rules: [{ name: 'v', contains: 'x', answer: 'ADD', phase: 'violation' }], default: 'D' },
    }),
    decl,
    'violation',
  );
  assert.equal(v.rules[0]!.name, 'v');
  assert.equal(v.default, 'D');
  assert.equal(v.dimensions, 256);
});

test('load-time checks: an unknown $ref in similarity or rules, a bad capture regex, a file store without a path', () => {
  const bad = withProvider({ setup: { similarity: [{ a: '$ref:nope', b: 'x', cosine: 0.5 }] } });
  assert.ok(
    checkWiring(bad).some((p) => /setup\.similarity\[0\]\.a: "\$ref:nope" names no setup memory/.test(p)),
    checkWiring(bad).join('\n'),
  );
  const badRule = scenarioSchema.safeParse({
    ...scenario('x'),
    provider: { rules: [{ contains: 'a', capture: '(', answer: 'b' }] },
  });
  assert.equal(badRule.success, false);
  const t = targetSchema.parse({ ...loadTarget('cipher').decl, store: { format: 'sqlite' } });
  assert.equal(t.store.path, undefined);
});
