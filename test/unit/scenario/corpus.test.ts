import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadScenario } from '../../../src/scenario/loader.ts';
import { InputError } from '../../../src/util/errors.ts';
import { ROOT, scenario, tempDir, writeJson } from '../../helpers.ts';
import { loadCorpus } from '../../../src/scenario/corpus.ts';

function corpus(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
}

test('memories_from seeds Markdown memories with YAML front matter, after the inline ones, from a folder or a glob', (t) => {
  const dir = tempDir(t);
  corpus(join(dir, 'mem'), {
    'a/one.md':
      '---\nref: one\ncategory: preference\nsource: user\nsubject: repo\ntags: [tooling, pnpm]\n---\nUser prefers pnpm over npm.\n',
    'b/two.md': '---\nid: two\n---\n\nDeploys go through staging first.\n',
    'b/notes.txt': 'not a memory',
  });
  writeJson(
    join(dir, 's.json5'),
    scenario('s', { setup: { memories: [{ ref: 'inline', content: 'x' }], memories_from: 'mem' } }),
  );
  const s = loadScenario(join(dir, 's.json5')).scenario;
  assert.deepEqual(
    s.setup.memories.map((m) => [m.ref, m.content, m.category ?? null]),
    [
      ['inline', 'x', null],
      ['one', 'User prefers pnpm over npm.', 'preference'],
      ['two', 'Deploys go through staging first.', null],
    ],
  );
  assert.deepEqual(s.setup.memories[1].tags, ['tooling', 'pnpm']);
  writeJson(join(dir, 'g.json5'), scenario('g', { setup: { memories_from: ['mem/b/*.md'] } }));
  assert.deepEqual(
    loadScenario(join(dir, 'g.json5')).scenario.setup.memories.map((m) => m.ref),
    ['two'],
  );
});

test('bad corpus files are load errors naming the file (and the line of a YAML error)', (t) => {
  const dir = tempDir(t);
  corpus(join(dir, 'mem'), {
    'noref.md': '---\ncategory: x\n---\nText\n',
    'yaml.md': '---\nref: y\ntags: [a, b\n---\nText\n',
    'nofm.md': 'Just text\n',
    'empty.md': '---\nref: e\n---\n\n',
    'dup1.md': '---\nref: same\n---\nA\n',
    'dup2.md': '---\nref: same\n---\nB\n',
  });
  const { problems } = loadCorpus(['mem'], join(dir, 's.json5'));
  const text = problems.join('\n');
  assert.match(text, /noref\.md: front matter: front matter needs `ref`/);
  assert.match(text, /yaml\.md:\d+:\d+: front matter:/);
  assert.match(text, /nofm\.md: expected YAML front matter/);
  assert.match(text, /empty\.md: the memory's text .* is empty/);
  assert.match(text, /dup2\.md: ref "same" is also used by .*dup1\.md/);
  writeJson(join(dir, 's.json5'), scenario('s', { setup: { memories_from: 'nowhere/*.md' } }));
  assert.throws(
    () => loadScenario(join(dir, 's.json5')),
    (e: unknown) => e instanceof InputError && /matches no \.md file/.test(e.message),
  );
});

test('rank and count refs must name a seeded memory or a remember step (exit 3)', (t) => {
  const dir = tempDir(t);
  writeJson(
    join(dir, 's.json5'),
    scenario('s', {
      assertions: [
        { kind: 'rank', name: 'r', phase: 'both', query: 'q', memory: '$ref:ghost', top_k: 3 },
        { kind: 'count', name: 'c', phase: 'both', ref: 'plain', op: 'eq', value: 1 },
      ],
    }),
  );
  assert.throws(
    () => loadScenario(join(dir, 's.json5')),
    (e: unknown) =>
      e instanceof InputError &&
      /assertions\[0\]\.memory: unknown ref "ghost"/.test(e.message) &&
      /assertions\[1\]\.ref: expected "\$ref:<name>"/.test(e.message),
  );
});

test('the shipped corpus: >= 120 memories over >= 8 domains, with duplicates, contradictions, ambiguous terms and near-misses', () => {
  const { memories, problems } = loadCorpus(['software'], join(ROOT, 'eval', 'corpus', 'x.json5'));
  assert.deepEqual(problems, []);
  assert.ok(memories.length >= 120, String(memories.length));
  const domains = new Set(memories.map((m) => m.tags[0]));
  assert.ok(domains.size >= 8, [...domains].join(','));
  for (const tag of ['duplicate', 'contradiction', 'ambiguous', 'near-miss', 'superseded'])
    assert.ok(memories.filter((m) => m.tags.includes(tag)).length >= 2, tag);
  for (const word of ['pool', 'spring', 'node'])
    assert.ok(memories.filter((m) => m.content.toLowerCase().includes(word)).length >= 3, word);
});

test('the six built-in recall scenarios load, each with a rank assertion, a warn-level llm check and a violation phase', () => {
  for (const s of ['relevant', 'cross-domain', 'ambiguous-terms', 'gibberish', 'superseded', 'after-restart']) {
    const sc = loadScenario(join(ROOT, 'scenarios', 'recall', `recall-${s}.json5`)).scenario;
    assert.ok(sc.setup.memories.length >= 120);
    assert.ok(sc.deterministic.violation);
    assert.ok(sc.assertions.some((a) => a.kind === 'rank'));
    assert.ok(sc.assertions.some((a) => a.kind === 'llm' && a.level === 'warn'));
  }
});
