import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../helpers.js';
import { clockUnsupported, usesClock } from '../../../src/cell/wall-clock.js';
import { replayDriver } from '../../../src/drive/replay.js';
import { scenarioSchema, type Scenario } from '../../../src/scenario/schema.js';
import { targetSchema } from '../../../src/targets/schema.js';
import type { Driver } from '../../../src/drive/types.js';

const scenario = (over: Record<string, unknown>): Scenario =>
  scenarioSchema.parse({
    schema_version: 1,
    id: 's',
    title: 't',
    description: 'd',
    deterministic: { well_behaved: [{ op: 'remember', content: 'x' }], violation: null },
    assertions: [{ kind: 'count', name: 'n', phase: 'both', contains: 'x', op: 'eq', value: 1 }],
    ...over,
  });
const decl = (server: Record<string, unknown>) =>
  targetSchema.parse({
    name: 't',
    description: 'd',
    server,
    store: { format: 'jsonl', path: '{{data}}/s.jsonl' },
    views: {
      memories: 'SELECT 1 AS id, 2 AS content, 3 AS category, 4 AS source, 0 AS is_deleted',
    },
    ops: { remember: [{ tool: 'r', args: {} }] },
  });

test('a cell uses the clock when the scenario sets it or a step it issues advances it', () => {
  const plain = scenario({});
  assert.equal(usesClock(plain, plain.deterministic.well_behaved), false);
  assert.equal(usesClock(scenario({ setup: { clock: '2026-01-01T00:00:00Z' } }), []), true);
  assert.equal(usesClock(scenario({ setup: { steps: [{ op: 'advance_clock', by: '1d' }] } }), []), true);
  assert.equal(usesClock(plain, [{ op: 'advance_clock', by: '1d' }]), true);
});

test('clock cells are unsupported off Node and in the agent layer, with the reason', (t) => {
  const s = scenario({ setup: { clock: '2026-01-01T00:00:00Z' } });
  const replay = replayDriver(s, 'well-behaved');
  assert.equal(clockUnsupported(s, decl({ command: '{{node}}', args: ['x.mjs'] }), replay), undefined);
  assert.equal(clockUnsupported(s, decl({ command: '/usr/bin/node' }), replay), undefined);
  assert.match(clockUnsupported(s, decl({ command: 'python3' }), replay) ?? '', /Node servers only .*"python3"/);
  assert.match(
    clockUnsupported(s, decl({ command: 'node' }), { ...replay, kind: 'agent' } as Driver) ?? '',
    /agent layer/,
  );
  assert.equal(clockUnsupported(scenario({}), decl({ command: 'python3' }), replay), undefined, 'no clock, no matter');
  // a package bin: JavaScript, or a script whose #! runs node; anything else is not Node
  const dir = tempDir(t);
  const bin = (name: string, head: string) => {
    const f = join(dir, name);
    writeFileSync(f, `${head}\n`);
    chmodSync(f, 0o755);
    return f;
  };
  const pkg = decl({});
  assert.equal(clockUnsupported(s, pkg, replay, bin('srv.js', '')), undefined);
  assert.equal(clockUnsupported(s, pkg, replay, bin('srv', '#!/usr/bin/env node')), undefined);
  assert.match(clockUnsupported(s, pkg, replay, bin('native', '\x7fELF')) ?? '', /bin native is neither JavaScript/);
  assert.match(clockUnsupported(s, pkg, replay, bin('py', '#!/usr/bin/env python3')) ?? '', /bin py/);
});
