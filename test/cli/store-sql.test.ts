/**
 * setup.store_sql through the real CLI: the built-in curation scenarios against an honest
 * curator over an SQLite store (eval/hostile/hostile.mjs, declared here), a statement that pins
 * nothing (error, never a verdict), a scenario that pins other targets only (unsupported), and
 * bad input (exit 3 before anything runs).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { memeval, ROOT, scenario, tempDir, timeLimit, writeJson } from '../helpers.js';

/** The honest curator: keeps the most trusted, most recalled, newest of each near-duplicate group. */
function honestTarget(dir: string): string {
  return writeJson(join(dir, 'hostile-sqlite-honest.json5'), {
    name: 'hostile-sqlite-honest',
    description: 'hostile.mjs, honest, over an SQLite store',
    server: {
      command: '{{node}}',
      args: ['{{memeval_dir}}/eval/hostile/hostile.mjs'],
      env: { HOSTILE: 'honest', STORE: '{{data}}/store.db' },
    },
    store: { format: 'sqlite', path: '{{data}}/store.db' },
    views: {
      memories:
        'SELECT id, text AS content, category, source, subject, updated_at AS created_at, deleted AS is_deleted FROM store.memories',
    },
    ops: {
      remember: [
        { tool: 'remember', args: { text: '{{content}}', category: '{{category}}' }, capture_id: 'stored (mem-\\d+)' },
      ],
      recall: [{ tool: 'recall', args: { query: '{{query}}' } }],
      forget: [{ tool: 'forget', args: { id: '{{memory.id}}' } }],
      update: [{ tool: 'update', args: { id: '{{memory.id}}', text: '{{content}}' } }],
      curate: [{ tool: 'curate', args: {} }],
      curate_dry_run: [{ tool: 'curate', args: { dry_run: true } }],
    },
    recall_results: { json: 'results' },
  });
}

interface Cell {
  scenario: string;
  phase: string;
  verdict: string;
  reason: string;
  store_sql?: { index: number; rows: number | null; ok: boolean; expect_rows: unknown }[];
}
const cellsOf = (out: string, stdout: string): Cell[] => {
  const report = /report: (\S+report\.json)/.exec(stdout)?.[1];
  assert.ok(report, stdout);
  return JSON.parse(readFileSync(report.startsWith('/') ? report : join(out, report), 'utf8')).results;
};

test(
  'the curation scenarios pin the store and hold on an honest curator; the pins are in the result and the evidence',
  { timeout: timeLimit(120_000) },
  async (t) => {
    const dir = tempDir(t);
    const out = join(dir, 'out');
    const r = await memeval(
      ['run', '--scenario', 'curation-*', '--target', honestTarget(dir), '--out', out, '--workers', '4'],
      { timeout: timeLimit(110_000) },
    );
    assert.equal(r.exitCode, 0, `${r.stdout}\n${r.stderr}`);
    const cells = cellsOf(out, String(r.stdout));
    assert.deepEqual(cells.map((c) => `${c.scenario} ${c.phase} ${c.verdict}`).sort(), [
      'curation-collapses-near-duplicates violation detected',
      'curation-collapses-near-duplicates well-behaved pass',
      'curation-dry-run-reports-pivot-duplicate violation detected',
      'curation-dry-run-reports-pivot-duplicate well-behaved pass',
      'curation-keeps-pinned-fact violation detected',
      'curation-keeps-pinned-fact well-behaved pass',
    ]);
    const pinned = cells.find((c) => c.scenario === 'curation-keeps-pinned-fact' && c.phase === 'well-behaved')!;
    assert.deepEqual(
      pinned.store_sql?.map((s) => [s.rows, s.ok]),
      [
        [1, true],
        [1, true],
      ],
    );
    const runDir = /report: (\S+)\/report\.json/.exec(String(r.stdout))![1]!;
    const sql = await memeval([
      'sql',
      runDir,
      'curation-collapses-near-duplicates/hostile-sqlite-honest/well-behaved',
      'SELECT seq, rows, ok, expect_rows FROM store_sql ORDER BY seq',
      '--json',
    ]);
    assert.equal(sql.exitCode, 0, sql.stderr);
    assert.deepEqual(JSON.parse(String(sql.stdout)), [
      { seq: 0, rows: 1, ok: 1, expect_rows: '1' },
      { seq: 1, rows: 3, ok: 1, expect_rows: '3' },
    ]);
  },
);

test(
  'a statement that pins nothing makes the cell error with the reason; a scenario pinning other targets only is unsupported',
  { timeout: timeLimit(60_000) },
  async (t) => {
    const dir = tempDir(t);
    const sc = join(dir, 'scenarios');
    mkdirSync(sc);
    const base = {
      setup: { memories: [{ ref: 'm', content: 'User prefers dark mode' }] },
      deterministic: { well_behaved: [{ op: 'curate' }], violation: null },
      assertions: [{ kind: 'count', name: 'kept', phase: 'both', contains: 'dark mode', op: 'eq', value: 1 }],
    };
    writeJson(
      join(sc, 'pins-nothing.json'),
      scenario('pins-nothing', {
        ...base,
        setup: {
          ...base.setup,
          store_sql: {
            'hostile-sqlite-honest': ["UPDATE memories SET trust = 0.9 WHERE text = 'User prefers light mode'"],
          },
        },
      }),
    );
    writeJson(
      join(sc, 'pins-other.json'),
      scenario('pins-other', {
        ...base,
        setup: { ...base.setup, store_sql: { memorix: ['UPDATE observations SET x = 1'] } },
      }),
    );
    const out = join(dir, 'out');
    const r = await memeval(['run', '--scenarios', sc, '--target', honestTarget(dir), '--out', out], {
      timeout: timeLimit(55_000),
    });
    assert.notEqual(r.exitCode, 0, String(r.stdout));
    const cells = cellsOf(out, String(r.stdout));
    const nothing = cells.find((c) => c.scenario === 'pins-nothing')!;
    assert.equal(nothing.verdict, 'error');
    assert.match(nothing.reason, /setup\.store_sql\[0\] changed 0 row\(s\), and the scenario expects at least 1 row/);
    assert.deepEqual(
      nothing.store_sql?.map((s) => [s.rows, s.ok]),
      [[0, false]],
    );
    const other = cells.find((c) => c.scenario === 'pins-other')!;
    assert.equal(other.verdict, 'unsupported');
    assert.match(other.reason, /setup\.store_sql\) for memorix only/);
  },
);

test(
  'bad store_sql is refused before anything runs: a key naming a JSONL target, a syntax error',
  { timeout: timeLimit(60_000) },
  async (t) => {
    const dir = tempDir(t);
    const sc = join(dir, 'scenarios');
    mkdirSync(sc);
    writeJson(
      join(sc, 'pins-jsonl.json'),
      scenario('pins-jsonl', {
        setup: {
          store_sql: { 'server-memory': ['UPDATE memories SET x = 1'], memorix: ['UPDTE observations SET x = 1'] },
        },
      }),
    );
    const r = await memeval(['run', '--scenarios', sc, '--target', 'server-memory', '--out', join(dir, 'out')]);
    assert.equal(r.exitCode, 3, `${r.stdout}\n${r.stderr}`);
    assert.match(
      String(r.stderr),
      /pins-jsonl\.json: setup\.store_sql\.server-memory: the target's store is jsonl, not SQLite/,
    );
    assert.match(String(r.stderr), /pins-jsonl\.json: setup\.store_sql\.memorix\[0\]: near "UPDTE": syntax error/);
  },
);

test(
  'expect_rows "any" is refused before anything runs: a pin that changed no row would leave the phase on a store the scenario did not describe',
  { timeout: timeLimit(60_000) },
  async (t) => {
    const dir = tempDir(t);
    const sc = join(dir, 'scenarios');
    mkdirSync(sc);
    writeJson(
      join(sc, 'pins-any.json'),
      scenario('pins-any', {
        setup: {
          memories: [{ ref: 'm', content: 'User prefers dark mode' }],
          store_sql: {
            'hostile-sqlite-honest': [
              { sql: "UPDATE memories SET trust = 1 WHERE text = 'nothing'", expect_rows: 'any' },
            ],
          },
        },
      }),
    );
    const r = await memeval(['run', '--scenarios', sc, '--target', honestTarget(dir), '--out', join(dir, 'out')], {
      timeout: timeLimit(55_000),
    });
    assert.equal(r.exitCode, 3, `${r.stdout}\n${r.stderr}`);
    assert.match(
      String(r.stderr),
      /pins-any\.json: setup\.store_sql\.hostile-sqlite-honest\[0\]\.expect_rows: a number \(exactly that many rows, 1 or more\) or "some"/,
    );
  },
);

test(
  'a server that rebuilds its store when it starts undoes the pins: every curation cell is error, naming the pin and the row',
  { timeout: timeLimit(120_000) },
  async (t) => {
    const dir = tempDir(t);
    const out = join(dir, 'out');
    const r = await memeval(
      [
        'run',
        '--scenario',
        'curation-*',
        '--target',
        join(ROOT, 'eval', 'hostile', 'hostile-sqlite-rebuild.json5'),
        '--out',
        out,
        '--workers',
        '4',
      ],
      { timeout: timeLimit(110_000) },
    );
    assert.equal(r.exitCode, 1, `${r.stdout}\n${r.stderr}`);
    const cells = cellsOf(out, String(r.stdout));
    assert.equal(cells.length, 6);
    for (const c of cells) {
      assert.equal(c.verdict, 'error', `${c.scenario} ${c.phase}: ${c.reason}`);
      assert.match(c.reason, /setup\.store_sql: server session \d+ undid the pins of setup\.store_sql\[\d\]/);
      // the pins ran and held until the server started: the result keeps them as they ran
      assert.ok(
        c.store_sql?.every((s) => s.ok),
        JSON.stringify(c.store_sql),
      );
    }
    const pinned = cells.find((c) => c.scenario === 'curation-keeps-pinned-fact' && c.phase === 'well-behaved')!;
    assert.match(pinned.reason, /memories row id = 'mem-0001': trust is 0\.5, pinned 0\.95/);
    assert.match(pinned.reason, /memories row id = 'pin-paraphrase' is gone \(the pins inserted it\)/);
  },
);
