import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ROOT, scenario, tempDir, writeJson } from '../../helpers.ts';
import { loadScenarios, scenarioFiles } from '../../../src/scenario/loader.ts';
import { loadTarget } from '../../../src/targets/loader.ts';
import { buildVocabulary } from '../../../src/fuzz/vocabulary.ts';
import { Generator, recipeClaims } from '../../../src/fuzz/generate.ts';
import { RECIPES } from '../../../src/fuzz/recipes.ts';
import { leafSteps } from '../../../src/fuzz/case.ts';

const builtin = () => loadScenarios(scenarioFiles(join(ROOT, 'scenarios')));
const serverMemory = () => loadTarget('server-memory').decl;

test('the vocabulary is read from the scenarios and the target, not typed in twice', () => {
  const scenarios = builtin();
  const v = buildVocabulary(scenarios, serverMemory());
  const absentTexts = scenarios.flatMap((s) =>
    s.scenario.assertions.flatMap((a) => (a.kind === 'absent' ? [a.text] : [])),
  );
  assert.deepEqual(
    v.secrets.map((s) => s.text).sort(),
    [...absentTexts].sort(),
    'every secret is an absent assertion of a scenario',
  );
  assert.ok(
    v.noise.some((n) => n.text.includes('passing (')),
    'run noise from run-noise-not-stored',
  );
  assert.ok(v.pivots.some((p) => p.from.includes('tabs') && p.to.includes('4 spaces')));
  assert.ok(v.workspace.some((w) => w.file.path === 'CONTRIBUTING.md'));
  assert.deepEqual(v.claims, ['exact-dedupe']);
  assert.ok(v.ops.includes('recall') && !v.ops.includes('curate'));
  assert.ok(RECIPES.length >= 10);
  for (const r of RECIPES) assert.ok(r.space(v).length > 0, `${r.name} can make cases from the built-in vocabulary`);
});

test('a split secret travels alone: the rest of its carrier holds no other secret', () => {
  const v = buildVocabulary(builtin(), serverMemory());
  const g = new Generator(v, { seed: 'split', recipes: ['secret-split'] });
  for (let i = 0; i < 18; i++) {
    const c = g.next();
    const content = leafSteps(c.steps)
      .map((s) => ('content' in s ? s.content : ''))
      .join(' ');
    const own = v.secrets.find((s) => s.id === c.ingredients[0])!;
    for (const other of v.secrets)
      if (other.id !== own.id && !own.text.includes(other.text))
        assert.ok(!content.includes(other.text), `${c.ingredients[0]}: ${content}`);
  }
});

test('a secret added to a scenario shows up in the generated cases', (t) => {
  const dir = tempDir(t);
  writeJson(
    join(dir, 'mine.json'),
    scenario('mine', { assertions: [{ kind: 'absent', name: 'no key', phase: 'both', text: 'ZZQ9SECRETVALUE77' }] }),
  );
  const v = buildVocabulary(loadScenarios(scenarioFiles(dir)), serverMemory());
  const g = new Generator(v, { seed: 's', recipes: ['secret-split'] });
  const c = g.next();
  const content = leafSteps(c.steps)
    .map((s) => ('content' in s ? s.content : ''))
    .join(' ');
  assert.ok(
    content.includes('ZZQ9SECRE') && content.includes('TVALUE77') && !content.includes('ZZQ9SECRETVALUE77'),
    content,
  );
  assert.ok(c.ingredients.includes('secret:mine:no key'));
});

test('generation prefers fingerprints never seen, and repeats only once a recipe is exhausted', () => {
  const v = buildVocabulary(builtin(), serverMemory());
  const space = RECIPES.find((r) => r.name === 'secret-disguised')!.space(v).length;
  const g = new Generator(v, { seed: 'n', recipes: ['secret-disguised'] });
  const first = Array.from({ length: space }, () => g.next());
  assert.equal(new Set(first.map((c) => c.fingerprint)).size, space, 'all distinct until the space is used up');
  assert.ok(first.every((c) => c.novel));
  const again = g.next();
  assert.equal(again.novel, false);
  assert.ok(first.some((c) => c.fingerprint === again.fingerprint));
  // fingerprints seen in earlier runs are skipped first
  const g2 = new Generator(v, {
    seed: 'n',
    recipes: ['secret-disguised'],
    seen: first.slice(0, space - 2).map((c) => c.fingerprint),
  });
  const fresh = [g2.next(), g2.next()];
  assert.deepEqual(new Set(fresh.map((c) => c.fingerprint)), new Set(first.slice(space - 2).map((c) => c.fingerprint)));
  assert.equal(g2.next().novel, false);
});

test('--seed reproduces a run; the fingerprint names ingredients, not literal text', () => {
  const v = buildVocabulary(builtin(), serverMemory());
  const run = (seed: string) => {
    const g = new Generator(v, { seed });
    return Array.from({ length: 30 }, () => g.next());
  };
  assert.deepEqual(run('abc'), run('abc'));
  const other = run('xyz');
  assert.notDeepEqual(
    other.map((c) => c.fingerprint),
    run('abc').map((c) => c.fingerprint),
  );
  // same ingredients under another seed: same fingerprint, fresh tokens
  const a = run('abc').find((c) => c.recipe === 'forget-recall')!;
  const g = new Generator(v, { seed: 'zzz', recipes: ['forget-recall'] });
  let b = g.next();
  // the recipe's whole space (corpus × 2, which grows with the built-in scenarios) comes before a repeat
  for (let i = 0; i < 1000 && b.fingerprint !== a.fingerprint; i++) b = g.next();
  assert.equal(b.fingerprint, a.fingerprint);
  assert.notDeepEqual(b.steps, a.steps, 'the literal case differs (its tokens)');
});

test('a token a case recalls opens the content that stores it (results that shorten long values still show it)', () => {
  const v = buildVocabulary(builtin(), serverMemory());
  const g = new Generator(v, { seed: 'tok' });
  for (let i = 0; i < 13 * 6; i++) {
    const c = g.next();
    const writes = leafSteps(c.steps).flatMap((s) => ('content' in s ? [s.content] : []));
    for (const e of c.expects) {
      if (e.kind !== 'recalled') continue;
      const w = writes.find((x) => x.includes(e.text));
      assert.ok(
        w !== undefined && w.indexOf(e.text) <= 10,
        `${c.recipe}: "${e.text}" in ${JSON.stringify(w?.slice(0, 80))}`,
      );
    }
  }
});

test('a target without an op gets no case that needs it', () => {
  const decl = serverMemory();
  const { update: _u, ...ops } = decl.ops;
  const v = buildVocabulary(builtin(), { ...decl, ops });
  const g = new Generator(v, { seed: 'ops' });
  for (let i = 0; i < 13 * 8; i++) assert.ok(!leafSteps(g.next().steps).some((s) => s.op === 'update'));
});

test('poisoning recipes write from an untrusted source and hold the write to it; export keeps it as an assertion that holds on an empty store', () => {
  const v = buildVocabulary(builtin(), serverMemory());
  const recipes = ['poison-instruction', 'poison-stuffed', 'poison-bridge'];
  const g = new Generator(v, { seed: 'poison', recipes });
  const seen = new Set<string>();
  for (let i = 0; i < 9; i++) {
    const c = g.next();
    seen.add(c.recipe);
    const writes = leafSteps(c.steps).flatMap((s) => (s.op === 'remember' ? [s] : []));
    const marked = c.expects.filter((e) => e.kind === 'marked');
    assert.ok(marked.length >= 1, `${c.recipe}: a provenance expectation`);
    for (const e of marked) {
      const w = writes.find((x) => x.content.includes(e.text));
      assert.equal(w?.source, e.source, `${c.recipe}: the write carries the source it is held to`);
      assert.match(e.source, /^(web|session):/);
    }
    // the user's own fact (stuffed, bridge) is written as the user's and must still be found
    if (c.recipe !== 'poison-instruction') assert.ok(writes.some((x) => x.source === 'user'));
  }
  assert.deepEqual([...seen].sort(), [...recipes].sort());
});

test("a target's declared forget and update are checked by their own meaning, with no claim stated", () => {
  const decl = loadTarget('mcp-memory-keeper').decl;
  assert.deepEqual(decl.claims, [], 'the server states no claim');
  const table = recipeClaims(buildVocabulary(builtin(), decl), decl.claims);
  const of = (name: string) => table.find((r) => r.recipe === name)!;
  assert.equal(of('forget-recall').byOp.forget, 'forget', 'forget-recall holds the forget op to forgetting');
  assert.equal(of('update-forget').byOp.forget, 'forget');
  assert.equal(of('pivot-chain').byOp.supersede, 'update', 'an update must replace');
  assert.equal(of('exact-duplicate').byOp['exact-dedupe'], undefined, 'a defence stays off without its claim');
});
