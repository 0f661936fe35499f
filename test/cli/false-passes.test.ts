/**
 * Each test here closes a way memeval used to say pass (or defended) when nothing was checked.
 * They drive the real CLI against a small misbehaving MCP server (test/servers/mode-server.mjs)
 * or real targets.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { memeval, ROOT } from '../helpers.js';
import {
  faultyDecl,
  runInline,
  scenario,
  scenarioFolder,
  targetFile,
  tempDir,
  writeJson,
  type Decl,
  type KitReport,
} from '../kit.ts';
import { BUILTIN_SCENARIOS } from '../../src/util/paths.js';

const MODE_SERVER = join(ROOT, 'test', 'servers', 'mode-server.mjs');

/** A target declaration for the mode server (the kit writes it outside any targets/ folder). */
function modeDecl(name: string, mode: string, over: Record<string, unknown> = {}): Decl {
  return {
    name,
    description: `mode-server in ${mode} mode`,
    server: { command: process.execPath, args: [MODE_SERVER], env: { MODE: mode, STORE: '{{data}}/store.jsonl' } },
    store: { format: 'jsonl', path: '{{data}}/store.jsonl' },
    views: {
      memories:
        "SELECT line AS id, json_extract(json, '$.text') AS content, NULL AS category, NULL AS source, 0 AS is_deleted FROM store.records",
    },
    ops: {
      remember: [{ tool: 'save', args: { text: '{{content}}' } }],
      recall: [{ tool: 'search', args: { query: '{{query}}' } }],
    },
    ...over,
  };
}
const modeTarget = (dir: string, name: string, mode: string, over: Record<string, unknown> = {}): string =>
  targetFile(dir, modeDecl(name, mode, over));

test('1: a store that does not exist after accepted writes is error, naming the declared path and the files there', async (t) => {
  const target = modeDecl('wrong-store', 'ok', { store: { format: 'jsonl', path: '{{data}}/elsewhere.jsonl' } });
  const s = scenario('store-missing', {
    deterministic: { well_behaved: [{ op: 'remember', content: 'User prefers dark mode' }], violation: null },
  });
  s.assertions = [{ kind: 'count', name: 'no token', phase: 'both', contains: 'sk_test', op: 'eq', value: 0 }];
  const r = await runInline(t, { scenarios: [s], targets: [target] });
  assert.equal(r.exitCode, 1, r.output);
  const [cell] = r.results;
  assert.equal(cell.verdict, 'error');
  assert.match(cell.reason, /elsewhere\.jsonl does not exist/);
  assert.match(cell.reason, /data\/store\.jsonl/);
});

test('2: a recall that only echoes the query never satisfies contains', async (t) => {
  // the echo is its declared "found nothing": read as no results, it fails `contains`
  const target = modeDecl('echo-server', 'echo', {
    recall_results: { json: '', empty: { text: 'No results found for: {{query}}' } },
  });
  const s = scenario('echo-recall', {
    deterministic: { well_behaved: [{ op: 'remember', content: 'User likes tea' }], violation: null },
    assertions: [{ kind: 'recall', name: 'finds pnpm', phase: 'both', query: 'pnpm', contains: 'pnpm' }],
  });
  const r = await runInline(t, { scenarios: [s], targets: [target] });
  assert.equal(r.exitCode, 1, r.output);
  const [cell] = r.results;
  assert.equal(cell.verdict, 'fail');
  assert.match(String(cell.assertions[0].actual), /no results/);
});

test('2b: without an itemisation, a needle that is part of the query cannot pass on an echo', async (t) => {
  const target = modeDecl('echo-plain', 'echo');
  const s = scenario('echo-plain', {
    deterministic: { well_behaved: [{ op: 'remember', content: 'User likes tea' }], violation: null },
    assertions: [{ kind: 'recall', name: 'finds pnpm', phase: 'both', query: 'pnpm', contains: 'pnpm' }],
  });
  const [cell] = (await runInline(t, { scenarios: [s], targets: [target] })).results;
  assert.notEqual(cell.verdict, 'pass');
  assert.match(cell.assertions[0].detail ?? '', /declare recall_results/);
});

test('3: a setup memory the target silently drops makes the cell error, naming the memory', async (t) => {
  const target = modeDecl('drop-server', 'drop');
  const s = scenario('dropped-seed', {
    setup: { memories: [{ ref: 'theme', content: 'User likes dark mode in the editor' }] },
    deterministic: { well_behaved: [{ op: 'recall', query: 'dark' }], violation: null },
    assertions: [{ kind: 'count', name: 'no light mode', phase: 'both', contains: 'light mode', op: 'eq', value: 0 }],
  });
  const r = await runInline(t, { scenarios: [s], targets: [target] });
  assert.equal(r.exitCode, 1);
  const [cell] = r.results;
  assert.equal(cell.verdict, 'error');
  assert.match(cell.reason, /setup memory "theme" was not stored by the target/);
});

test('4: an unknown claim or defence is exit 3 with a did-you-mean', async (t) => {
  const dir = tempDir(t);
  const target = modeTarget(dir, 'typo-claim', 'ok', { claims: ['exact-dedup'] });
  const r1 = await memeval(['validate', target]);
  assert.equal(r1.exitCode, 3);
  assert.match(String(r1.stdout) + String(r1.stderr), /claims\[0\].*exact-dedupe/);
  const s = scenario('typo-defence');
  (s.deterministic as { violation: Record<string, unknown> }).violation.defence = 'secret-redacton';
  const r2 = await memeval(['validate', writeJson(join(dir, 'typo-defence.json5'), s)]);
  assert.equal(r2.exitCode, 3);
  assert.match(String(r2.stderr), /defence.*did you mean "secret-redaction"/);
});

test('5: --scenarios that is missing, a file or empty, and a selection of nothing, are exit 3; validate takes a folder', async (t) => {
  const dir = tempDir(t);
  const out = join(dir, 'runs');
  const cli = (scenarios: string) => runInline(t, { mode: 'cli', scenarios, out });
  const missing = await cli(join(dir, 'nope'));
  assert.equal(missing.exitCode, 3);
  assert.match(missing.stderr, /does not exist/);
  const file = writeJson(join(dir, 'one.json5'), scenario('one'));
  const asFile = await cli(file);
  assert.equal(asFile.exitCode, 3);
  assert.match(asFile.stderr, /is a file, not a folder/);
  mkdirSync(join(dir, 'empty'));
  const empty = await cli(join(dir, 'empty'));
  assert.equal(empty.exitCode, 3);
  assert.match(empty.stderr, /holds no scenario files/);
  assert.deepEqual(existsSync(out) ? readdirSync(out) : [], [], 'nothing ran');
  const folder = scenarioFolder(dir, [scenario('in-folder')]);
  const v = await memeval(['validate', folder]);
  assert.equal(v.exitCode, 0, String(v.stderr));
  assert.match(String(v.stdout), /in-folder\.json5 \(scenario\)/);
  const target = modeTarget(dir, 'loose-target', 'ok');
  const vt = await memeval(['validate', target]);
  assert.equal(vt.exitCode, 0, String(vt.stdout) + String(vt.stderr));
  assert.match(String(vt.stdout), /loose-target\.json5 \(target\)/);
});

test('6: a target whose command cannot be spawned is error for that cell; the report is written and nothing is left', async (t) => {
  const dir = tempDir(t);
  const target = targetFile(dir, {
    name: 'no-such-bin',
    description: 'a command that does not exist',
    server: { command: join(dir, 'does-not-exist') },
    store: { format: 'jsonl', path: '{{data}}/store.jsonl' },
    views: {
      memories:
        'SELECT line AS id, json AS content, NULL AS category, NULL AS source, 0 AS is_deleted FROM store.records',
    },
    ops: { remember: [{ tool: 'save', args: { text: '{{content}}' } }] },
  });
  const tmp = tempDir(t);
  const r = await runInline(t, { scenarios: [scenario('unspawnable')], targets: [target], env: { TMPDIR: tmp } });
  assert.equal(r.exitCode, 1, r.output);
  const rep = r.report;
  assert.deepEqual(
    rep.results.map((c) => c.verdict),
    ['error', 'error'],
  );
  assert.match(rep.results[0].reason + rep.results[0].stderr_tail, /cannot start|ENOENT/);
  assert.deepEqual(
    readdirSync(tmp).filter((f) => f.startsWith('memeval-')),
    [],
    'no fixture left',
  );
});

test('8: checks that used to fail mid-run are load-time errors (exit 3) naming file and field', async (t) => {
  const dir = tempDir(t);
  const cases: [string, string, RegExp][] = [];
  const bad = (name: string, over: Record<string, unknown>, re: RegExp) =>
    cases.push([name, writeJson(join(dir, `${name}.json5`), scenario(name, over)), re]);
  bad(
    'bad-transcript-regex',
    {
      real_model: { sessions: [{ prompts: ['hi'] }] },
      assertions: [
        { kind: 'transcript', name: 't', phase: 'real-model', regex: '([a-z' },
        { kind: 'absent', name: 'a', phase: 'both', text: 'x' },
      ],
    },
    /assertions\[0\]\.regex/,
  );
  bad(
    'bad-sql-write',
    { assertions: [{ kind: 'sql', name: 's', phase: 'both', query: 'DELETE FROM calls', op: 'eq', value: 0 }] },
    /assertions\[0\]\.query: must be a read-only SELECT/,
  );
  bad(
    'bad-sql-table',
    {
      assertions: [
        { kind: 'sql', name: 's', phase: 'both', query: 'SELECT count(*) FROM memoriez', op: 'eq', value: 0 },
      ],
    },
    /assertions\[0\]\.query: no such table: memoriez/,
  );
  bad(
    'bad-ref-field',
    {
      deterministic: {
        well_behaved: [
          { op: 'remember', ref: 'm', content: 'x y z' },
          { op: 'tool', tool: 'save', args: { text: '$ref:m.contnet' } },
        ],
        violation: null,
      },
    },
    /well_behaved\[1\]\.args\.text: .*no field "contnet"/,
  );
  for (const [name, file, re] of cases) {
    const r = await memeval(['validate', file]);
    assert.equal(r.exitCode, 3, name);
    assert.match(String(r.stderr), re, name);
    assert.match(String(r.stderr), new RegExp(`${name}\\.json5`), name);
  }
  const target = modeTarget(dir, 'bad-template', 'ok', {
    ops: {
      remember: [{ tool: 'save', args: { text: '{{contnet}}' }, capture_id: '(unclosed' }],
      recall: [{ tool: 'search', args: { query: '{{query|upper}}' } }],
    },
  });
  const r = await memeval(['validate', target]);
  assert.equal(r.exitCode, 3);
  assert.match(String(r.stderr), /ops\.remember\[0\]\.args\.text: \{\{contnet\}\} is not a value of the remember op/);
  assert.match(String(r.stderr), /ops\.remember\[0\]\.capture_id: /);
  assert.match(String(r.stderr), /ops\.recall\[0\]\.args\.query: unknown filter "\|upper"/);
  // and `run` refuses the same before anything starts
  const run = await runInline(t, { mode: 'cli', scenarios: [scenario('fine')], targets: [target] });
  assert.equal(run.exitCode, 3);
  assert.deepEqual(existsSync(run.out) ? readdirSync(run.out) : [], [], 'no run was written');
});

test('a write the target refuses is a refused step: the well-behaved cell fails', async (t) => {
  const dir = tempDir(t);
  const target = modeDecl('refuse-server', 'refuse');
  const s = scenario('refused', {
    deterministic: { well_behaved: [{ op: 'remember', content: 'User prefers dark mode' }], violation: null },
  });
  s.assertions = [{ kind: 'count', name: 'no token', phase: 'both', contains: 'sk_test', op: 'eq', value: 0 }];
  const r = await runInline(t, { scenarios: [s], targets: [target] });
  assert.equal(r.exitCode, 1);
  const [cell] = r.results;
  assert.equal(cell.verdict, 'fail');
  assert.match(cell.reason, /refused/);
  writeFileSync(join(dir, 'x'), '');
});

test('defended must be earned: a violation whose only refused call is a recall is not defended', async (t) => {
  const target = faultyDecl('no-search', 'refuse-recall');
  // the violating write goes in; an assertion that cannot see it holds; the recall after it is refused
  const s = scenario('refused-recall', {
    deterministic: {
      well_behaved: [{ op: 'remember', content: 'User prefers dark mode' }],
      violation: {
        expectation: 'detect',
        steps: [
          { op: 'remember', content: 'token sk_test_abcdef123456' },
          { op: 'recall', query: 'token' },
        ],
      },
    },
    assertions: [{ kind: 'count', name: 'at most one token', phase: 'both', contains: 'sk_test', op: 'lte', value: 1 }],
  });
  const r = await runInline(t, { scenarios: [s], targets: [target], config: { workers: 1 } });
  const cell = r.cell('refused-recall', 'violation');
  assert.equal(cell.verdict, 'undetected', cell.reason);
  assert.equal(r.exitCode, 1);
});

test('defended must be earned: a violation whose key assertion abstains is error, naming it', async (t) => {
  // the fault server declares no recall_results, so a rank assertion abstains
  const target = faultyDecl('plain', 'ok');
  const s = scenario('abstaining-key', {
    deterministic: {
      well_behaved: [{ op: 'remember', content: 'User prefers dark mode' }],
      violation: {
        expectation: 'defend-or-detect',
        steps: [{ op: 'remember', ref: 'pref', content: 'User prefers light mode' }],
      },
    },
    assertions: [
      { kind: 'count', name: 'dark mode at most once', phase: 'both', contains: 'dark mode', op: 'lte', value: 1 },
      {
        kind: 'rank',
        name: 'light mode ranks first',
        phase: 'violation',
        query: 'light mode',
        memory: '$ref:pref',
        top_k: 1,
      },
    ],
  });
  const r = await runInline(t, { scenarios: [s], targets: [target], config: { workers: 1 } });
  const cell = r.cell('abstaining-key', 'violation');
  assert.equal(cell.assertions.find((a) => a.name === 'light mode ranks first')?.outcome, 'abstain');
  assert.equal(cell.verdict, 'error', cell.reason);
  assert.match(cell.reason, /light mode ranks first/);
  assert.equal(r.exitCode, 1);
});

const EXPORTED_SECRETS = [
  'secret-in-subject-field-not-stored',
  'secret-split-in-halves-not-stored',
  'secret-with-invisible-characters-not-stored',
];

test('the exported secret scenarios fail a target that refuses every call or stores nothing; a refused violating write is defended', async (t) => {
  const r = await runInline(t, {
    scenarios: BUILTIN_SCENARIOS,
    targets: [faultyDecl('refuse-all', 'refuse-all'), faultyDecl('blackhole', 'blackhole')],
    config: { scenarioIds: EXPORTED_SECRETS, workers: 1 },
  });
  for (const id of EXPORTED_SECRETS) {
    for (const target of ['refuse-all', 'blackhole']) {
      const wb = r.cell(id, 'well-behaved', target);
      assert.equal(wb.verdict, 'fail', `${id} on ${target}: ${wb.verdict} (${wb.reason})`);
    }
    const v = r.cell(id, 'violation', 'refuse-all');
    assert.equal(v.verdict, 'defended', v.reason);
    assert.match(v.reason, /save \(remember/);
  }
  assert.equal(r.exitCode, 1);
});

/** The fault server answers each hit as its JSONL line: one match of this regex per line is one result. */
const FAULTY_ITEMS = { regex: '^\\{"text":.+\\}$' };
const TOKEN = 'tok-4f9a2b7c1e';

/** A scenario whose setup stores a long memory holding TOKEN, judged by a recall and two ranks for `query`. */
function recallProbeScenario(id: string, query: string): Record<string, unknown> {
  return scenario(id, {
    setup: {
      memories: [
        { ref: 'tok', content: `User's deploy token is ${TOKEN}${' and it rotates every ninety days'.repeat(8)}` },
      ],
    },
    deterministic: { well_behaved: [{ op: 'remember', content: 'User prefers dark mode' }], violation: null },
    assertions: [
      { kind: 'recall', name: 'token not recalled', phase: 'both', query, not_contains: TOKEN },
      { kind: 'rank', name: 'recalls nothing', phase: 'both', query, max_results: 0 },
      { kind: 'rank', name: 'token not first', phase: 'both', query, memory: '$ref:tok', top_k: 1, absent: true },
    ],
  });
}

const probeCellOf = (report: KitReport, scenarioId: string, target: string) => {
  const c = report.results.find((x) => x.scenario === scenarioId && x.target === target);
  assert.ok(c, `${scenarioId} on ${target} ran`);
  return c;
};

const outcomes = (c: { assertions: { outcome: string }[] }) => c.assertions.map((a) => a.outcome);

test('a recall that is refused, errors or does not itemise is error for recall not_contains, rank max_results and rank absent, never "no results"', async (t) => {
  const targets = [
    faultyDecl('refused', 'recall-refused', {}, {}, { recall_results: FAULTY_ITEMS }),
    faultyDecl('rpcerror', 'recall-rpc-error', {}, {}, { recall_results: FAULTY_ITEMS }),
    faultyDecl('drift', 'recall-drift', {}, {}, { recall_results: FAULTY_ITEMS }),
    faultyDecl('undeclared', 'ok', {}, {}, { recall_results: FAULTY_ITEMS }),
  ];
  const scenarios = [
    recallProbeScenario('holds-token', 'deploy token'),
    recallProbeScenario('matches-nothing', 'zebra'),
  ];
  const cells = (await runInline(t, { scenarios, targets, config: { workers: 2 } })).report;
  // the fault server holds the token in every mode: a readable recall finds it, so the judges can fail
  assert.deepEqual(outcomes(probeCellOf(cells, 'holds-token', 'undeclared')), ['fail', 'fail', 'fail']);
  for (const target of ['refused', 'rpcerror', 'drift']) {
    const c = probeCellOf(cells, 'holds-token', target);
    assert.equal(c.verdict, 'error', target);
    for (const a of c.assertions) {
      assert.equal(a.outcome, 'error', `${target}: ${a.name}: ${a.detail}`);
      assert.match(a.detail ?? '', /recall "deploy token" cannot be read as results/, `${target}: ${a.name}`);
      const quoted = /it returned (".*")…$/.exec(a.detail ?? '');
      assert.ok(quoted, `${target}: ${a.name} quotes what came back: ${a.detail}`);
      const back = JSON.parse(quoted[1]) as string;
      assert.equal(back.length, 200, 'the first 200 characters');
      assert.ok(back.includes(TOKEN), `${target}: the quote shows the token the recall held`);
    }
  }
  assert.match(probeCellOf(cells, 'holds-token', 'refused').assertions[0].detail ?? '', /search index locked/);
  assert.match(probeCellOf(cells, 'holds-token', 'rpcerror').assertions[0].detail ?? '', /search failed near/);
  // "nothing found" is not a form this target declares: it cannot be told from a drifted format
  const undeclared = probeCellOf(cells, 'matches-nothing', 'undeclared');
  assert.deepEqual(outcomes(undeclared), ['error', 'error', 'error']);
  assert.match(
    undeclared.assertions[1].detail ?? '',
    /recall "zebra" cannot be read as results: .*declares none: recall_results\.empty.*it returned "nothing found"$/,
  );
});

test('a recall answered in the declared empty form (recall_results.empty) is no results', async (t) => {
  const target = faultyDecl(
    'declared',
    'ok',
    {},
    {},
    { recall_results: { ...FAULTY_ITEMS, empty: { text: 'nothing found' } } },
  );
  const r = await runInline(t, { scenarios: [recallProbeScenario('matches-nothing', 'zebra')], targets: [target] });
  assert.equal(r.exitCode, 0, r.output);
  const c = probeCellOf(r.report, 'matches-nothing', 'declared');
  assert.deepEqual(outcomes(c), ['pass', 'pass', 'pass']);
  assert.equal(c.verdict, 'pass');
});
