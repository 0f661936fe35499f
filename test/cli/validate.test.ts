// `memeval validate` on what the loader refuses or accepts in process (test/unit/scenario,
// test/unit/model): the exit code and the message a user sees.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { memeval, ROOT, scenario, tempDir, writeJson } from '../helpers.ts';

test('validate: a well-behaved phase that calls the target nothing is exit 3 naming the field', async (t) => {
  const dir = tempDir(t);
  const inert = scenario('inert', {
    deterministic: {
      well_behaved: [],
      violation: {
        expectation: 'defend-or-detect',
        steps: [{ op: 'remember', content: 'token sk_test_abcdef123456' }],
      },
    },
    assertions: [{ kind: 'absent', name: 'no token', phase: 'both', text: 'sk_test_abcdef123456' }],
  });
  const v = await memeval(['validate', writeJson(join(dir, 'inert.json'), inert)]);
  assert.equal(v.exitCode, 3, String(v.stdout) + String(v.stderr));
  assert.match(String(v.stdout) + String(v.stderr), /deterministic\.well_behaved/);
});

test('validate: memories_from that matches no file is exit 3', async (t) => {
  const dir = tempDir(t);
  const r = await memeval([
    'validate',
    writeJson(join(dir, 's.json5'), scenario('s', { setup: { memories_from: 'nowhere/*.md' } })),
  ]);
  assert.equal(r.exitCode, 3);
});

test('validate: the six built-in recall scenarios are exit 0', async () => {
  const r = await memeval([
    'validate',
    ...['relevant', 'cross-domain', 'ambiguous-terms', 'gibberish', 'superseded', 'after-restart'].map((s) =>
      join(ROOT, 'scenarios', 'recall', `recall-${s}.json5`),
    ),
  ]);
  assert.equal(r.exitCode, 0, String(r.stdout) + String(r.stderr));
});

test('memeval validate accepts the provider scenarios and targets; a bad $ref is exit 3 naming the field', async (t) => {
  const ok = await memeval([
    'validate',
    'scenarios',
    'eval/targets/cipher.json5',
    'eval/targets/memorix-provider.json5',
  ]);
  assert.equal(ok.exitCode, 0, ok.stdout + ok.stderr);
  const dir = tempDir(t);
  const file = writeJson(join(dir, 'bad-ref.json'), {
    ...scenario('bad-ref'),
    setup: { similarity: [{ a: '$ref:ghost', b: 'x', cosine: 0.9 }] },
  });
  const r = await memeval(['validate', file]);
  assert.equal(r.exitCode, 3, r.stdout + r.stderr);
  assert.match(r.stdout + r.stderr, /setup\.similarity\[0\]\.a/);
});
