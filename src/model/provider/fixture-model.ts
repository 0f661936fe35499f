import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { flatSteps, type Scenario } from '../../scenario/schema.js';
import type { TargetDecl } from '../../targets/schema.js';
import { probeQueries } from '../../scenario/kinds.js';
import { fillString } from '../../util/template.js';
import { characterEmbeddingModel, tinyEmbeddingModel, type TinyModelFiles } from './onnx-model.js';

/** Every text a scenario may make a server embed: seeds, steps, queries, declared similarities, prompts. */
export function scenarioTexts(s: Scenario): string[] {
  const steps = flatSteps([...s.deterministic.well_behaved, ...(s.deterministic.violation?.steps ?? [])]);
  return [
    ...s.setup.memories.map((m) => m.content),
    ...steps.flatMap((st) => ('content' in st ? [st.content] : 'query' in st ? [st.query] : [])),
    ...s.setup.similarity.flatMap((x) => [x.a, x.b]),
    ...probeQueries(s.assertions),
    ...(s.real_model?.sessions.flatMap((x) => x.prompts) ?? []),
  ];
}

/**
 * A server that downloads a transformers.js model at first use (memories.sh) finds a tiny
 * deterministic one already in its cache: `fixture.embedding_model.dir` in the declaration.
 * Nothing is fetched, and the same scenario always gives the same stored vectors.
 */
export async function writeFixtureModel(o: {
  scenario: Scenario;
  decl: TargetDecl;
  vars: Record<string, string>;
  root: string;
}): Promise<string | undefined> {
  const spec = o.decl.fixture.embedding_model;
  if (!spec) return undefined;
  const dir = resolve(fillString(spec.dir, o.vars));
  const rel = relative(o.root, dir);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel))
    throw new Error(`fixture.embedding_model.dir: "${spec.dir}" leaves the fixture (${dir})`);
  await writeModel(dir, tinyEmbeddingModel(scenarioTexts(o.scenario), spec.dimensions));
  return dir;
}

async function writeModel(dir: string, files: TinyModelFiles): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
}

const sameFiles = (dir: string, files: TinyModelFiles): boolean =>
  Object.entries(files).every(([path, content]) => {
    const p = join(dir, path);
    return existsSync(p) && readFileSync(p).equals(Buffer.from(content));
  });

/**
 * A server whose transformers.js looks for its model inside its own install (agentdb: no cache
 * dir or host setting reaches it) finds memeval's fixed model there, where a first download
 * would have cached the real one: `package.cached_model` in the declaration. Cells share the
 * install, so the model knows no scenario, and it is renamed into place whole: a cell starting
 * beside another never sees half a model.
 */
export async function ensureCachedModel(decl: TargetDecl, prefix: string): Promise<string | undefined> {
  const spec = decl.package?.cached_model;
  if (!spec) return undefined;
  // the schema keeps the path inside the install
  const dir = resolve(prefix, spec.path);
  const files = characterEmbeddingModel(spec.dimensions);
  if (sameFiles(dir, files)) return dir;
  const staging = `${dir}.staging-${randomUUID()}`;
  const old = `${dir}.old-${randomUUID()}`;
  await writeModel(staging, files);
  // another model there (an older memeval's, a real download) is replaced, not mixed with ours
  if (existsSync(dir)) await rename(dir, old).catch(() => undefined);
  try {
    await rename(staging, dir);
  } catch (e) {
    // another cell put the same model in place first
    if (!sameFiles(dir, files)) throw e;
  } finally {
    await rm(staging, { recursive: true, force: true });
    await rm(old, { recursive: true, force: true });
  }
  return dir;
}
