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

/**
 * A corpus in the shapes other memory projects write: several memories per file (one per `##`
 * section, one per list item), comma-separated tags, front-matter keys memeval does not know.
 * Generated here rather than copied from any project.
 */
function otherShapes(dir: string): void {
  corpus(dir, {
    'infra.md': [
      '---',
      'tags: infra, ops',
      'category: decision',
      'date: 2024-05-01',
      'confidence: 0.8',
      '---',
      '# Infrastructure notes',
      '',
      '## Node version',
      'Builds use Node 20 everywhere.',
      '',
      '## Connection pool',
      'The pgbouncer pool size is 20 per service.',
      '',
      '## Node version',
      'The CI image pins Node 20.11.',
    ].join('\n'),
    'prefs.md': [
      '---',
      'id: prefs',
      'tags: [user]',
      'owner: platform-team',
      '---',
      '- User prefers pnpm over npm.',
      '- User wants 2-space indentation,',
      '  also in YAML files.',
      '* Commit messages are written in English.',
    ].join('\n'),
    'mixed.md': [
      '---',
      'subject: repo',
      '---',
      'Deploys go through staging first.',
      '',
      '## Review rules',
      '1. Two approvals for main.',
      '2. No self-merges.',
    ].join('\n'),
    'single.md': '---\nref: single\ntags: "security,  secrets ,"\nreviewed: true\n---\nSecrets live in Vault.\n',
  });
}

test('memories_from reads several memories per file (## sections, list items), comma-separated tags and unknown keys as metadata', (t) => {
  const dir = tempDir(t);
  otherShapes(join(dir, 'mem'));
  const { memories, problems } = loadCorpus(['mem'], join(dir, 's.json5'));
  assert.deepEqual(problems, []);
  assert.deepEqual(
    memories.map((m) => [m.ref, m.content]),
    [
      ['infra-node-version', 'Builds use Node 20 everywhere.'],
      ['infra-connection-pool', 'The pgbouncer pool size is 20 per service.'],
      ['infra-node-version-2', 'The CI image pins Node 20.11.'],
      ['mixed', 'Deploys go through staging first.'],
      ['mixed-review-rules-1', 'Two approvals for main.'],
      ['mixed-review-rules-2', 'No self-merges.'],
      ['prefs-1', 'User prefers pnpm over npm.'],
      ['prefs-2', 'User wants 2-space indentation, also in YAML files.'],
      ['prefs-3', 'Commit messages are written in English.'],
      ['single', 'Secrets live in Vault.'],
    ],
  );
  const by = (ref: string) => memories.find((m) => m.ref === ref)!;
  assert.deepEqual(by('infra-connection-pool').tags, ['infra', 'ops']);
  assert.equal(by('infra-connection-pool').category, 'decision');
  assert.deepEqual(by('infra-node-version').metadata, { date: '2024-05-01', confidence: 0.8 });
  assert.deepEqual(by('prefs-2').metadata, { owner: 'platform-team' });
  assert.equal(by('mixed-review-rules-2').subject, 'repo');
  assert.deepEqual(by('single').tags, ['security', 'secrets']);
  assert.deepEqual(by('single').metadata, { reviewed: true });

  // through the scenario loader: the memories are seeded in order, metadata kept, refs usable by rank
  writeJson(
    join(dir, 's.json5'),
    scenario('s', {
      setup: { memories_from: 'mem' },
      assertions: [
        { kind: 'rank', name: 'pool', phase: 'both', query: 'pool', memory: '$ref:infra-connection-pool', top_k: 3 },
      ],
    }),
  );
  const s = loadScenario(join(dir, 's.json5')).scenario;
  assert.equal(s.setup.memories.length, 10);
  assert.deepEqual(s.setup.memories[0].metadata, { date: '2024-05-01', confidence: 0.8 });
});

test('several memories per file still fail closed: an empty section, a list ref colliding with another file, a bad tags type', (t) => {
  const dir = tempDir(t);
  corpus(join(dir, 'mem'), {
    'a.md': '---\nref: a\n---\n## Empty\n\n## Full\nText.\n',
    'b.md': '---\nref: a-full\n---\nAlso text.\n',
    'c.md': '---\nref: c\ntags: 7\n---\nText.\n',
    'd.md': '---\nref: d\n---\nOne line, not a list.\n- but this one is\n',
  });
  const { memories, problems } = loadCorpus(['mem'], join(dir, 's.json5'));
  const text = problems.join('\n');
  assert.match(text, /a\.md: section "## Empty" has no text/);
  assert.match(text, /b\.md: ref "a-full" is also used by .*a\.md/);
  assert.match(text, /c\.md: front matter tags:/);
  // a body that is not only a list stays one memory
  assert.equal(memories.find((m) => m.ref === 'd')?.content, 'One line, not a list.\n- but this one is');
});
