/**
 * setup.store_sql through a whole run (in process): the built-in curation scenarios against an honest
 * curator over an SQLite store (eval/hostile/hostile.mjs, declared here), a statement that pins
 * nothing (error, never a verdict), a scenario that pins other targets only (unsupported), and
 * bad input (exit 3 before anything runs).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { memeval, ROOT } from '../helpers.js';
import { hostileDecl, runInline, scenario, timeLimit } from '../kit.ts';

/** The honest curator: keeps the most trusted, most recalled, newest of each near-duplicate group. */
const HONEST = hostileDecl('honest', {
  name: 'hostile-sqlite-honest',
  store: 'sqlite',
  ops: ['remember', 'recall', 'forget', 'update', 'curate', 'curate_dry_run'],
});

test(
  'the curation scenarios pin the store and hold on an honest curator; the pins are in the result and the evidence',
  { timeout: timeLimit(120_000) },
  async (t) => {
    const r = await runInline(t, { targets: [HONEST], config: { scenarioIds: ['curation-*'], workers: 4 } });
    assert.equal(r.exitCode, 0, r.output);
    const cells = r.results;
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
    const sql = await memeval([
      'sql',
      r.runDir!,
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
    const base = {
      setup: { memories: [{ ref: 'm', content: 'User prefers dark mode' }] },
      deterministic: { well_behaved: [{ op: 'curate' }], violation: null },
      assertions: [{ kind: 'count', name: 'kept', phase: 'both', contains: 'dark mode', op: 'eq', value: 1 }],
    };
    const scenarios = [
      scenario('pins-nothing', {
        ...base,
        setup: {
          ...base.setup,
          store_sql: {
            'hostile-sqlite-honest': ["UPDATE memories SET trust = 0.9 WHERE text = 'User prefers light mode'"],
          },
        },
      }),
      scenario('pins-other', {
        ...base,
        setup: { ...base.setup, store_sql: { memorix: ['UPDATE observations SET x = 1'] } },
      }),
    ];
    const r = await runInline(t, { scenarios, targets: [HONEST] });
    assert.notEqual(r.exitCode, 0, r.output);
    const cells = r.results;
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
    const r = await runInline(t, {
      scenarios: [
        scenario('pins-jsonl', {
          setup: {
            store_sql: { 'server-memory': ['UPDATE memories SET x = 1'], memorix: ['UPDTE observations SET x = 1'] },
          },
        }),
      ],
      targets: ['server-memory'],
    });
    assert.equal(r.exitCode, 3, r.output);
    assert.match(
      r.output,
      /pins-jsonl\.json5: setup\.store_sql\.server-memory: the target's store is jsonl, not SQLite/,
    );
    assert.match(r.output, /pins-jsonl\.json5: setup\.store_sql\.memorix\[0\]: near "UPDTE": syntax error/);
  },
);

test(
  'expect_rows "any" is refused before anything runs: a pin that changed no row would leave the phase on a store the scenario did not describe',
  { timeout: timeLimit(60_000) },
  async (t) => {
    const r = await runInline(t, {
      scenarios: [
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
      ],
      targets: [HONEST],
    });
    assert.equal(r.exitCode, 3, r.output);
    assert.match(
      r.output,
      /pins-any\.json5: setup\.store_sql\.hostile-sqlite-honest\[0\]\.expect_rows: a number \(exactly that many rows, 1 or more\) or "some"/,
    );
  },
);

test(
  'a server that rebuilds its store when it starts undoes the pins: every curation cell is error, naming the pin and the row',
  { timeout: timeLimit(120_000) },
  async (t) => {
    const r = await runInline(t, {
      targets: [join(ROOT, 'eval', 'hostile', 'hostile-sqlite-rebuild.json5')],
      config: { scenarioIds: ['curation-*'], workers: 4 },
    });
    assert.equal(r.exitCode, 1, r.output);
    const cells = r.results;
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
