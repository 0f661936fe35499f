import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { Scenario } from '../../scenario/schema.js';
import type { TargetDecl } from '../../targets/schema.js';
import { fillString } from '../../util/template.js';
import { tinyEmbeddingModel } from './onnx-model.js';

/** Every text a scenario may make a server embed: seeds, steps, queries, declared similarities, prompts. */
export function scenarioTexts(s: Scenario): string[] {
  const steps = [...s.deterministic.well_behaved, ...(s.deterministic.violation?.steps ?? [])];
  return [
    ...s.setup.memories.map((m) => m.content),
    ...steps.flatMap((st) => ('content' in st ? [st.content] : 'query' in st ? [st.query] : [])),
    ...s.setup.similarity.flatMap((x) => [x.a, x.b]),
    ...s.assertions.flatMap((a) => ('query' in a && a.kind === 'recall' ? [a.query] : [])),
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
  for (const [path, content] of Object.entries(tinyEmbeddingModel(scenarioTexts(o.scenario), spec.dimensions))) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return dir;
}
