/**
 * `absent` finds a secret wherever and however the run left it in the fixture: encoded in the
 * store, in files beside it, in big files, in HOME, in the deterministic layer as in the agent one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, openSync, writeFileSync, ftruncateSync } from 'node:fs';
import { join } from 'node:path';
import { createFixture, removeFixture } from '../../src/fixture/fixture.ts';
import { buildEvidence } from '../../src/evidence/build.ts';
import { fixtureFilesToScan } from '../../src/judge/fixture-files.ts';
import { runJudges } from '../../src/judge/registry.ts';
import { loadTarget } from '../../src/targets/loader.ts';
import { assertionSchema } from '../../src/scenario/schema.ts';
import { MAX_SCAN_BYTES, scanFile } from '../../src/judge/scan.ts';
import { faultyDecl, runInline, scenario, tempDir, timeLimit, type Decl } from '../kit.ts';

const SECRET = 'tok_"é"_9f3kq';

/** One scenario whose well-behaved phase stores the secret, asserted absent; run against each target. */
async function runAgainst(t: { after: (fn: () => void) => void }, targets: Decl[]) {
  const s = scenario('residue', {
    deterministic: { well_behaved: [{ op: 'remember', content: `my token is ${SECRET}` }], violation: null },
    assertions: [{ kind: 'absent', name: 'no token', phase: 'well-behaved', text: SECRET, case_sensitive: true }],
  });
  const r = await runInline(t, { scenarios: [s], targets, config: { workers: 2 } });
  const byTarget = new Map<string, any>(r.results.map((c) => [c.target, c]));
  return { r, byTarget };
}

test(
  "absent finds the secret JSON-escaped in a JSONL store, outside the view's content column",
  { timeout: timeLimit(300_000) },
  async (t) => {
    const { byTarget } = await runAgainst(t, [faultyDecl('escaped', 'redact-escaped')]);
    const cell = byTarget.get('escaped');
    assert.equal(cell.verdict, 'fail', cell.reason);
    const a = cell.assertions[0];
    assert.equal(a.outcome, 'fail');
    assert.match(String(a.actual), /records\.json \(1 row, json-escaped\)/);
    assert.match(String(a.actual), /raw bytes of store\.jsonl \(json-escaped\)/);
    assert.ok(a.scanned.encodings.includes('json-escaped'), 'the judgment records the encodings tried');
  },
);

test(
  'absent scans every file the deterministic run left: beside the store, elsewhere in the data dir, in HOME',
  { timeout: timeLimit(300_000) },
  async (t) => {
    const targets = {
      sidecar: faultyDecl('sidecar', 'redact-residue', {}, { RESIDUE: '{{data}}/store.jsonl.idx' }),
      datadir: faultyDecl('datadir', 'redact-residue', {}, { RESIDUE: '{{data}}/logs/2026/server.log' }),
      home: faultyDecl('home', 'redact-residue', {}, { RESIDUE: '{{home}}/.local/share/faulty/history.txt' }),
    };
    const { byTarget } = await runAgainst(t, Object.values(targets));
    const expect = {
      sidecar: 'data/store.jsonl.idx',
      datadir: 'data/logs/2026/server.log',
      home: 'home/.local/share/faulty/history.txt',
    };
    for (const [name, label] of Object.entries(expect)) {
      const cell = byTarget.get(name);
      assert.equal(cell.verdict, 'fail', `${name}: ${cell.reason}`);
      assert.match(String(cell.assertions[0].actual), new RegExp(`fixture file ${label.replace(/\./g, '\\.')}`), name);
      assert.ok(cell.assertions[0].scanned.fixture.files >= 1, `${name}: the judgment records the files read`);
    }
  },
);

test('absent reads a file over 5 MiB whole (streamed), and a secret cut by a read boundary', async (t) => {
  const f = await createFixture('absent-big');
  t.after(() => removeFixture(f));
  const decl = loadTarget('server-memory').decl;
  const storePath = join(f.data, 'memory.jsonl');
  writeFileSync(storePath, '');
  // 6 MiB of filler, then the secret across the 1 MiB boundary a chunked read would cut it at
  const big = Buffer.alloc(6 * 1024 * 1024 + 64, 'z');
  big.write('tok_live_bigfile', 6 * 1024 * 1024 - 5);
  writeFileSync(join(f.project, 'cache.bin'), big);
  const files = fixtureFilesToScan({ fixture: f, profileDirs: [], setupFiles: [], storePath });
  assert.deepEqual(
    files.map((x) => x.label),
    ['project/cache.bin'],
  );
  const cut = Buffer.alloc(2 * 1024 * 1024, 'z');
  cut.write('tok_live_bigfile', 1024 * 1024 - 7);
  writeFileSync(join(f.data, 'cut.bin'), cut);
  assert.deepEqual(
    scanFile(join(f.data, 'cut.bin'), [{ text: 'TOK_LIVE_BIGFILE', caseSensitive: false }]).hits.size,
    1,
  );

  const evidence = buildEvidence(decl, storePath, tempDir(t), []);
  t.after(() => evidence.close());
  const absent = assertionSchema.parse({ kind: 'absent', name: 'no token', phase: 'both', text: 'tok_live_bigfile' });
  const [j] = await runJudges([absent], { evidence, files, fixture: f });
  assert.equal(j.outcome, 'fail', String(j.actual));
  assert.match(String(j.actual), /fixture file project\/cache\.bin/);
});

test('a file too large to scan is error naming it, never a pass', async (t) => {
  const f = await createFixture('absent-huge');
  t.after(() => removeFixture(f));
  const decl = loadTarget('server-memory').decl;
  const storePath = join(f.data, 'memory.jsonl');
  writeFileSync(storePath, '');
  // sparse: no disk is used
  const fd = openSync(join(f.data, 'huge.idx'), 'w');
  ftruncateSync(fd, MAX_SCAN_BYTES + 1);
  closeSync(fd);
  const files = fixtureFilesToScan({ fixture: f, profileDirs: [], setupFiles: [], storePath });
  const evidence = buildEvidence(decl, storePath, tempDir(t), []);
  t.after(() => evidence.close());
  const absent = assertionSchema.parse({ kind: 'absent', name: 'no token', phase: 'both', text: 'tok_live_huge' });
  const [j] = await runJudges([absent], { evidence, files, fixture: f });
  assert.equal(j.outcome, 'error');
  assert.match(String(j.actual), /data\/huge\.idx \(\d+ bytes, over the \d+-byte scan limit\)/);
});
