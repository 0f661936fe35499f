import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { characterEmbeddingModel, tinyEmbeddingModel } from '../../src/model/provider/onnx-model.js';
import { loadScenarios } from '../../src/scenario/loader.js';
import { loadTarget } from '../../src/targets/loader.js';
import { resolveTargetBin, targetPrefix } from '../../src/targets/resolve-bin.js';
import { installTarget } from '../../src/targets/install-target.js';
import { runDeterministic } from '../../src/app/run.js';
import { openEvidence } from '../../src/evidence/open.js';
import { BUILTIN_SCENARIOS } from '../../src/util/paths.js';
import { tempDir } from '../helpers.js';

const TEXTS = ['We use Postgres for accounts', 'The deploy function tags git releases'];

/**
 * memories-sh's own transformers.js (installed into the cache) with `files` as its cached
 * Xenova/all-MiniLM-L6-v2 model, offline: how a server would embed with the model memeval wrote.
 */
async function embedderWith(
  t: { diagnostic: (s: string) => void; after: (fn: () => void) => void },
  files: Record<string, string | Uint8Array>,
): Promise<(s: string) => Promise<number[]>> {
  const { decl } = loadTarget('memories-sh');
  await installTarget(decl, (s) => t.diagnostic(s));
  const cache = tempDir(t);
  const dir = join(cache, 'Xenova', 'all-MiniLM-L6-v2');
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), c);
  }
  const lib = join(
    targetPrefix(decl.package!, decl.name),
    'node_modules',
    '@xenova',
    'transformers',
    'src',
    'transformers.js',
  );
  const { pipeline, env } = await import(pathToFileURL(lib).href);
  env.allowRemoteModels = false;
  const extract = await pipeline('feature-extraction', 'Xenova/all-MiniLM-L6-v2', {
    cache_dir: cache,
    quantized: true,
    local_files_only: true,
  });
  return async (s: string): Promise<number[]> =>
    Array.from((await extract(s, { pooling: 'mean', normalize: true })).data as Float32Array);
}

test("the generated model is byte-identical for the same texts and loads in memories.sh's own transformers.js", async (t) => {
  const a = tinyEmbeddingModel(TEXTS);
  assert.deepEqual(tinyEmbeddingModel([...TEXTS]), a);
  const embed = await embedderWith(t, a);
  const cos = (x: number[], y: number[]) => x.reduce((s, v, i) => s + v * y[i]!, 0);
  const [p, q, r, unknown] = [
    await embed(TEXTS[0]!),
    await embed(TEXTS[0]!),
    await embed(TEXTS[1]!),
    await embed('zzz qqq'),
  ];
  assert.equal(p.length, 384);
  assert.ok(Math.abs(cos(p, q) - 1) < 1e-6);
  assert.ok(Math.abs(cos(p, r)) < 0.3, `unrelated texts ${cos(p, r)}`);
  assert.ok(!unknown.some(Number.isNaN), 'words outside the vocabulary still embed');
});

test("the character model (agentdb's cached model) embeds any text by its letters in transformers.js", async (t) => {
  const embed = await embedderWith(t, characterEmbeddingModel());
  const cos = (x: number[], y: number[]) => x.reduce((s, v, i) => s + v * y[i]!, 0);
  const [a, b, c, odd] = [
    await embed("User's preferred package manager is pnpm"),
    await embed('package manager'),
    await embed('zzz qqq xxx'),
    await embed('¿ü!'),
  ];
  assert.equal(a.length, 384);
  assert.ok(cos(a, b) > cos(a, c) + 0.2, `shared words ${cos(a, b)}, none ${cos(a, c)}`);
  assert.ok(!odd.some(Number.isNaN), 'a text of no known letter still embeds');
});

test('memories.sh embeds every memory with the seeded model and never asks the network', async (t) => {
  const target = loadTarget('memories-sh');
  await installTarget(target.decl, (s) => t.diagnostic(s));
  const scenarios = loadScenarios([join(BUILTIN_SCENARIOS, 'cross-session-recall.json5')]);
  const { report, runDir } = await runDeterministic({
    scenarios,
    targets: [{ ...target, bin: resolveTargetBin(target.decl) }],
    workers: 1,
    keep: false,
    outDir: tempDir(t),
  });
  const wb = report.results.find((r) => r.phase === 'well-behaved')!;
  assert.equal(wb.verdict, 'pass', wb.reason);
  assert.deepEqual(
    wb.warnings.filter((w) => /network refused/.test(w)),
    [],
  );
  const ev = openEvidence(join(runDir, wb.cell_dir));
  try {
    assert.equal(
      ev.db.prepare('SELECT count(*) FROM store.memories WHERE length(embedding) = 384 * 4').pluck().get(),
      1,
    );
  } finally {
    ev.close();
  }
});
