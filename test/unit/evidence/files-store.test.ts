import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildEvidence, EvidenceError, storeBytes } from '../../../src/evidence/build.js';
import { checkEvidence } from '../../../src/evidence/hash.js';
import { runJudges } from '../../../src/judge/registry.js';
import { assertionSchema, type Assertion } from '../../../src/scenario/schema.js';
import { checkViews } from '../../../src/targets/checks.js';
import { targetSchema } from '../../../src/targets/schema.js';
import { tempDir } from '../../helpers.js';

const filesTarget = (path: string, memories: string) =>
  targetSchema.parse({
    name: 'files-test',
    description: 'a folder of files made by the test',
    server: { command: 'true' },
    store: { format: 'files', path },
    views: { memories },
    ops: { remember: [{ tool: 'write', args: { text: '{{content}}' } }] },
  });

const VIEW =
  "SELECT path AS id, content, NULL AS category, NULL AS source, dir AS subject, NULL AS created_at, 0 AS is_deleted FROM store.files WHERE name LIKE '%.md'";

const assertions = (xs: unknown[]): Assertion[] => xs.map((x) => assertionSchema.parse(x));

test('a files store: every file under the folder is a row of store.files, and absent finds a secret in its bytes', async (t) => {
  const dir = tempDir(t);
  const bank = join(dir, 'fixture', 'bank');
  mkdirSync(join(bank, 'user', 'notes'), { recursive: true });
  writeFileSync(join(bank, 'user', 'editor.md'), 'User edits code in Neovim');
  writeFileSync(join(bank, 'user', 'notes', 'deploy.md'), 'deploy token sk_test_FolderResidue42');
  writeFileSync(join(bank, 'index.txt'), 'not a memory');
  // outside the store, reached only through a link the store holds
  writeFileSync(join(dir, 'outside.md'), 'sk_test_BehindALink99');
  symlinkSync(join(dir, 'outside.md'), join(bank, 'user', 'link.md'));

  const ev = buildEvidence(filesTarget(bank, VIEW), bank, join(dir, 'cell'), []);
  t.after(() => ev.close());
  assert.deepEqual(ev.db.prepare('SELECT path, dir, name, content, size FROM store.files ORDER BY path').all(), [
    { path: 'index.txt', dir: '', name: 'index.txt', content: 'not a memory', size: 12 },
    { path: 'user/editor.md', dir: 'user', name: 'editor.md', content: 'User edits code in Neovim', size: 25 },
    {
      path: 'user/notes/deploy.md',
      dir: 'user/notes',
      name: 'deploy.md',
      content: 'deploy token sk_test_FolderResidue42',
      size: 36,
    },
  ]);
  assert.deepEqual(
    ev.storeFiles.map((f) => f.slice(join(dir, 'cell').length)),
    ['/store/bank/index.txt', '/store/bank/user/editor.md', '/store/bank/user/notes/deploy.md'],
  );
  const out = await runJudges(
    assertions([
      { kind: 'count', name: 'two memories', phase: 'both', op: 'eq', value: 2 },
      { kind: 'absent', name: 'no token', phase: 'both', text: 'sk_test_FolderResidue42' },
      { kind: 'absent', name: 'the link is not followed', phase: 'both', text: 'sk_test_BehindALink99' },
    ]),
    { evidence: ev },
  );
  const by = Object.fromEntries(out.map((x) => [x.name, x]));
  assert.equal(by['two memories'].outcome, 'pass');
  assert.equal(by['no token'].outcome, 'fail');
  assert.match(String(by['no token'].actual), /files\.content \(1 row\)/);
  assert.match(String(by['no token'].actual), /raw bytes of deploy\.md/);
  assert.equal(by['the link is not followed'].outcome, 'pass');

  // the copies in the store's folders are hashed, so a changed one is seen
  appendFileSync(join(dir, 'cell', 'store', 'bank', 'user', 'notes', 'deploy.md'), 'x');
  assert.deepEqual(checkEvidence(join(dir, 'cell'), ev.sha256).changed, ['store/bank/user/notes/deploy.md']);
});

test('a files store never created holds no memories; a store path that is a file is an error naming it', (t) => {
  const dir = tempDir(t);
  const missing = join(dir, 'never-made');
  const ev = buildEvidence(filesTarget(missing, VIEW), missing, join(dir, 'cell'), []);
  t.after(() => ev.close());
  assert.equal(ev.db.prepare('SELECT count(*) FROM memories').pluck().get(), 0);

  const file = join(dir, 'memory.md');
  writeFileSync(file, 'one file, not a folder');
  assert.throws(
    () => buildEvidence(filesTarget(file, VIEW), file, join(dir, 'cell2'), []),
    (e: Error) => e instanceof EvidenceError && e.message.includes(`store ${file} is not a folder`),
  );
});

test('views over a files store are compiled against store.files at load time, columns included', () => {
  assert.deepEqual(checkViews(filesTarget('{{data}}/bank', VIEW)), []);
  const wrongColumn = VIEW.replace('content,', 'body AS content,');
  assert.deepEqual(checkViews(filesTarget('{{data}}/bank', wrongColumn)), [
    'views.memories: does not compile: no such column: body',
  ]);
});

test('storeBytes: a files store holds the bytes of its files, so one emptied at stop is seen (its folder keeps a size)', (t) => {
  const dir = tempDir(t);
  const bank = join(dir, 'bank');
  mkdirSync(join(bank, 'user'), { recursive: true });
  writeFileSync(join(bank, 'user', 'a.md'), 'twelve bytes');
  writeFileSync(join(bank, 'b.md'), 'four');
  assert.equal(storeBytes(bank), 16);
  rmSync(join(bank, 'user', 'a.md'));
  rmSync(join(bank, 'b.md'));
  assert.equal(storeBytes(bank), 0);
  assert.equal(storeBytes(join(bank, 'user')), 0);
  assert.equal(storeBytes(join(dir, 'never-made')), undefined);
  writeFileSync(join(dir, 'memory.jsonl'), '{}\n');
  assert.equal(storeBytes(join(dir, 'memory.jsonl')), 3);
});
