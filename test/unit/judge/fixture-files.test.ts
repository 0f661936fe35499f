import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFixture, removeFixture } from '../../../src/fixture/fixture.ts';
import { buildEvidence } from '../../../src/evidence/build.ts';
import { fixtureFilesToScan } from '../../../src/judge/fixture-files.ts';
import { runJudges } from '../../../src/judge/registry.ts';
import { loadTarget } from '../../../src/targets/loader.ts';
import { assertionSchema } from '../../../src/scenario/schema.ts';
import { memeval, tempDir, writeJson, scenario } from '../../helpers.ts';

test('absent also finds a secret in the agent\'s own memory file or a new project file, naming the file', async (t) => {
  const f = await createFixture('absent-scan');
  t.after(() => removeFixture(f));
  const decl = loadTarget('server-memory').decl;
  const storePath = join(f.data, 'memory.jsonl');
  writeFileSync(storePath, '');
  const profile = join(f.root, 'agent');
  mkdirSync(join(profile, 'gemini-home', '.gemini'), { recursive: true });
  writeFileSync(join(profile, 'gemini-home', '.gemini', 'GEMINI.md'), '## Gemini Added Memories\n- token tok_live_scan_me\n');
  // a session log names the secret too (the prompt said it): not memory, not scanned
  mkdirSync(join(profile, 'gemini-home', '.gemini', 'tmp', 'chats'), { recursive: true });
  writeFileSync(join(profile, 'gemini-home', '.gemini', 'tmp', 'chats', 'session.json'), '{"prompt":"my token is tok_live_scan_me"}');
  // a setup file as the scenario wrote it is not the agent's doing; a changed one is
  writeFileSync(join(f.project, 'README.md'), 'token tok_live_scan_me in the docs');
  writeFileSync(join(f.project, 'notes.md'), 'untouched');
  const setupFiles = [
    { path: 'README.md', content: 'token tok_live_scan_me in the docs' },
    { path: 'notes.md', content: 'original' },
  ];
  const files = fixtureFilesToScan({ fixture: f, profileDirs: [profile, f.home], setupFiles, storePath });
  assert.deepEqual(files.map((x) => x.label).sort(), ['agent/gemini-home/.gemini/GEMINI.md', 'project/notes.md']);

  const cellDir = tempDir(t);
  const evidence = buildEvidence(decl, storePath, cellDir, []);
  t.after(() => evidence.close());
  const absent = assertionSchema.parse({ kind: 'absent', name: 'no token', phase: 'real-model', text: 'tok_live_scan_me' });
  const [withFiles] = await runJudges([absent], { evidence, files, fixture: f });
  assert.equal(withFiles.outcome, 'fail');
  assert.match(String(withFiles.actual), /fixture file agent\/gemini-home\/\.gemini\/GEMINI\.md/);
  // without the fixture files the store alone is clean: what the check missed before
  const [storeOnly] = await runJudges([absent], { evidence });
  assert.equal(storeOnly.outcome, 'pass');
});

test('the file assertion checks a fixture path exists, contains and matches, in the deterministic phases too', { timeout: 120_000 }, async (t) => {
  const dir = tempDir(t);
  const scenarios = join(dir, 'scenarios');
  mkdirSync(scenarios);
  writeJson(
    join(scenarios, 'file-checks.json5'),
    scenario('file-checks', {
      setup: { files: [{ path: 'docs/notes.md', content: 'build with pnpm 9\n' }] },
      assertions: [
        { kind: 'count', name: 'dark mode once', phase: 'both', contains: 'dark mode', op: 'eq', value: 1 },
        { kind: 'file', name: 'notes kept', phase: 'both', path: 'docs/notes.md', contains: 'pnpm', regex: 'pnpm \\d+' },
        { kind: 'file', name: 'no stray file', phase: 'both', path: '{{home}}/MEMORY.md', exists: false },
        { kind: 'file', name: 'wrong content', phase: 'violation', path: 'docs/notes.md', not_contains: 'pnpm' },
        { kind: 'file', name: 'outside', phase: 'violation', path: '/etc/hostname' },
      ],
    }),
  );
  const r = await memeval(['run', '--scenarios', scenarios, '--json', '--out', join(dir, 'out')]);
  const report = JSON.parse(r.stdout);
  const byPhase = (p: string) => report.results.find((c: { phase: string }) => c.phase === p);
  const wb = byPhase('well-behaved');
  assert.equal(wb.verdict, 'pass', wb.reason);
  const status = (c: any, n: string) => c.assertions.find((a: { name: string }) => a.name === n).outcome;
  assert.equal(status(wb, 'notes kept'), 'pass');
  assert.equal(status(wb, 'no stray file'), 'pass');
  const v = byPhase('violation');
  assert.equal(status(v, 'wrong content'), 'fail');
  assert.equal(status(v, 'outside'), 'error', 'a path outside the fixture is refused');
});
