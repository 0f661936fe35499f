import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { characterEmbeddingModel } from '../../../src/model/provider/onnx-model.js';
import { ensureCachedModel } from '../../../src/model/provider/fixture-model.js';
import { loadTarget } from '../../../src/targets/loader.js';
import { targetSchema } from '../../../src/targets/schema.js';
import { tempDir } from '../../helpers.js';

const MODEL = 'node_modules/@xenova/transformers/.cache/Xenova/all-MiniLM-L6-v2';

test('the character model knows no scenario: every letter and digit, at a word start and after ##, byte-identical each time', () => {
  const a = characterEmbeddingModel();
  assert.deepEqual(characterEmbeddingModel(), a);
  const vocab = (JSON.parse(String(a['tokenizer.json'])) as { model: { vocab: Record<string, number> } }).model.vocab;
  for (const piece of ['a', '##a', 'z', '##z', '0', '##9', '_', '##_']) assert.ok(piece in vocab, piece);
  assert.equal(Object.keys(vocab).length, 2 + 2 * 37);
});

test('a cached model is written whole inside the install once, and a different one there is replaced', async (t) => {
  const { decl } = loadTarget('agentdb');
  assert.equal(decl.package?.cached_model?.path, MODEL);
  const prefix = tempDir(t);
  const dir = await ensureCachedModel(decl, prefix);
  assert.equal(dir, join(prefix, MODEL));
  const files = characterEmbeddingModel();
  for (const [p, c] of Object.entries(files)) assert.ok(readFileSync(join(dir, p)).equals(Buffer.from(c)), p);
  // a real download (or an older memeval's model) in its place
  writeFileSync(join(dir, 'tokenizer.json'), '{"model":{}}');
  mkdirSync(join(dir, 'extra'));
  await ensureCachedModel(decl, prefix);
  assert.equal(readFileSync(join(dir, 'tokenizer.json'), 'utf8'), files['tokenizer.json']);
  assert.deepEqual(readdirSync(dir).sort(), ['config.json', 'onnx', 'tokenizer.json', 'tokenizer_config.json']);
  assert.deepEqual(
    readdirSync(join(prefix, 'node_modules/@xenova/transformers/.cache/Xenova')),
    ['all-MiniLM-L6-v2'],
    'no staging or old copy is left beside it',
  );
});

test('package.cached_model.path must stay inside the install', () => {
  const decl = structuredClone(loadTarget('agentdb').decl) as Record<string, unknown> & {
    package: Record<string, unknown>;
  };
  for (const path of ['../elsewhere/model', '/abs/model', 'node_modules/../../x', 'C:\\model']) {
    decl.package.cached_model = { path };
    const r = targetSchema.safeParse(decl);
    assert.equal(r.success, false, path);
    assert.match(JSON.stringify(r.error?.issues), /relative to the install dir/, path);
  }
});
