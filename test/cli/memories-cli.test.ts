// The memories.sh CLI subset the reference and hostile servers ship (eval/reference/cli.mjs,
// eval/hostile/hostile-cli.mjs), run on stores made here: what each command reports is what the
// store holds, a check that could not look fails, and what is not implemented is a usage error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ROOT, tempDir, timeLimit } from '../helpers.js';

const REFERENCE = join(ROOT, 'eval', 'reference', 'cli.mjs');
const HOSTILE = join(ROOT, 'eval', 'hostile', 'hostile-cli.mjs');

function cli(file: string, env: Record<string, string>, ...args: string[]) {
  const r = spawnSync(process.execPath, [file, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: timeLimit(30_000),
  });
  return {
    code: r.status,
    stdout: r.stdout,
    stderr: r.stderr,
    json: () => JSON.parse(r.stdout) as Record<string, any>,
  };
}

/** A reference store as its server makes it, with one memory of each status and one forgotten (deleted). */
function referenceStore(dir: string): string {
  const file = join(dir, 'reference.db');
  // the server's own schema, from the module it keeps it in
  const schema = execFileSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { SCHEMA } from ${JSON.stringify(join(ROOT, 'eval', 'reference', 'store.mjs'))}; process.stdout.write(SCHEMA)`,
    ],
    { encoding: 'utf8' },
  );
  const db = new Database(file);
  db.exec(schema);
  const add = db.prepare(
    "INSERT INTO memories (text, category, status, created_at, updated_at) VALUES (?, 'note', ?, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')",
  );
  add.run('User edits code in Neovim', 'active');
  add.run('The project uses pnpm for packages', 'active');
  add.run('The project uses npm for packages', 'superseded');
  add.run('User works at Initech', 'active');
  db.prepare("DELETE FROM memories WHERE text LIKE '%Initech%'").run();
  db.close();
  return file;
}

test('reference cli: export, stats and doctor say what the store holds; only active memories are live', (t) => {
  const dir = tempDir(t);
  const env = { STORE: referenceStore(dir) };
  const out = join(dir, 'export.json');
  const exported = cli(REFERENCE, env, 'export', '--format', 'json', '--output', out);
  assert.equal(exported.code, 0, exported.stderr);
  const doc = JSON.parse(readFileSync(out, 'utf8')) as { memories: { content: string }[] };
  assert.deepEqual(
    doc.memories.map((m) => m.content),
    ['User edits code in Neovim', 'The project uses pnpm for packages'],
  );
  const stats = cli(REFERENCE, env, 'stats', '--json');
  assert.equal(stats.code, 0, stats.stderr);
  assert.equal(stats.json().total, 2);
  assert.equal(stats.json().retired, 1);
  const doctor = cli(REFERENCE, env, 'doctor', '--json', '--local-only');
  assert.equal(doctor.code, 0, doctor.stderr);
  assert.deepEqual(doctor.json().summary, { passed: 5, warned: 0, failed: 0 });
});

test('reference cli doctor: a corrupt page, a schema the server did not make and an unknown status each fail a check', (t) => {
  const dir = tempDir(t);
  const file = referenceStore(dir);
  const db = new Database(file);
  db.exec(
    "ALTER TABLE memories ADD COLUMN extra TEXT; CREATE INDEX by_text ON memories(text); UPDATE memories SET status = 'zombie' WHERE id = 1",
  );
  db.close();
  // overwrite the index's page (the last one) past its header: the table still reads, the b-tree does not hold
  const bytes = readFileSync(file);
  const page = bytes.readUInt16BE(16);
  bytes.fill(0x41, bytes.length - page + 8, bytes.length - page + 64);
  writeFileSync(file, bytes);
  const doctor = cli(REFERENCE, { STORE: file }, 'doctor', '--json');
  const failed = (doctor.json().checks as { id: string; status: string }[]).filter((c) => c.status === 'fail');
  assert.deepEqual(
    failed.map((c) => c.id),
    ['schema_integrity', 'schema', 'statuses'],
  );
  assert.equal(doctor.json().summary.failed, 3);
});

test('reference cli: a missing store is never an empty answer, and what is not implemented is a usage error', (t) => {
  const env = { STORE: join(tempDir(t), 'never-made.db') };
  const doctor = cli(REFERENCE, env, 'doctor', '--json');
  assert.equal(doctor.json().summary.passed, 0, 'no check passes on a store it could not open');
  assert.equal(doctor.json().summary.failed, 5);
  for (const args of [
    ['stats', '--json'],
    ['export', '--format', 'json'],
  ]) {
    const r = cli(REFERENCE, env, ...args);
    assert.equal(r.code, 1, args.join(' '));
    assert.match(r.stderr, /cannot read the store: no store at/);
    assert.equal(r.stdout, '');
  }
  assert.equal(existsSync(env.STORE), false, 'reading made no store');
  for (const args of [
    ['stats'],
    ['doctor'],
    ['export', '--format', 'yaml'],
    ['add', 'x'],
    [],
    ['stats', '--json', '--all'],
  ]) {
    const r = cli(REFERENCE, env, ...args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /usage: memories export/);
  }
});

test('hostile cli: live as the server recalls it, so soft-forget exports and counts what it only marked deleted', (t) => {
  const dir = tempDir(t);
  const store = join(dir, 'store.jsonl');
  const row = (id: string, text: string, deleted: boolean) => JSON.stringify({ id, text, category: 'note', deleted });
  writeFileSync(
    store,
    [row('mem-0001', 'User works at Initech', true), row('mem-0002', 'User edits code in Neovim', false)].join('\n') +
      '\n',
  );
  for (const [mode, live] of [
    ['honest', ['User edits code in Neovim']],
    ['crash-exit', ['User edits code in Neovim']],
    ['soft-forget', ['User works at Initech', 'User edits code in Neovim']],
  ] as const) {
    const env = { STORE: store, HOSTILE: mode };
    const exported = cli(HOSTILE, env, 'export', '--format', 'json');
    assert.equal(exported.code, 0, exported.stderr);
    assert.deepEqual(
      (exported.json().memories as { content: string }[]).map((m) => m.content),
      live,
      mode,
    );
    assert.equal(cli(HOSTILE, env, 'stats', '--json').json().total, live.length, mode);
    assert.equal(cli(HOSTILE, env, 'doctor', '--json').json().summary.failed, 0, mode);
  }
  // a line that is no memory record fails the doctor; an SQLite store that is not one fails it too
  writeFileSync(store, readFileSync(store, 'utf8') + 'not json\n');
  assert.equal(cli(HOSTILE, { STORE: store }, 'doctor', '--json').json().summary.failed, 1);
  const db = join(dir, 'store.db');
  writeFileSync(db, 'not a database');
  const doctor = cli(HOSTILE, { STORE: db }, 'doctor', '--json');
  assert.equal(doctor.json().summary.failed, 1, doctor.stdout);
  assert.equal(cli(HOSTILE, { STORE: join(dir, 'none.db') }, 'stats', '--json').code, 1);
});
