/**
 * The hostile-target matrix: every built-in scenario against every hostile target (eval/hostile/)
 * through `memeval selftest`, in the deterministic layer (the agent layer is in
 * test/agents/hostile-matrix.test.ts, codex with the scripted model). No cell may get a verdict that is false for its target
 * (HOSTILE_RULES in src/selftest/rules.ts, checked in test/unit/selftest/hostile-rules.test.ts). The judge-shaped hostility (a dead endpoint, one that answers garbage)
 * is run against llm, jury and cascade scenarios written here. A new assertion kind, gate or
 * reporter belongs in this matrix before it is done.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { memeval } from '../helpers.js';
import { HOSTILE_DIR, runInline, scenario, tempDir, timeLimit, writeJson } from '../kit.ts';
import { assertCoverage, falsePassLine, parseSelftest } from '../selftest-report.js';

const ENV = { NO_COLOR: '1', FORCE_COLOR: '0', MEMEVAL_CACHE_DIR: process.env.MEMEVAL_CACHE_DIR ?? '' };
const POSITIVE = new Set(['pass', 'defended', 'detected']);

test(
  'deterministic layer: no built-in scenario passes falsely against any hostile target',
  { timeout: timeLimit(20 * 60_000) },
  async (t) => {
    const r = await memeval(['selftest', '--json', '--workers', '4'], { env: ENV, timeout: timeLimit(20 * 60_000) });
    const rep = parseSelftest(String(r.stdout), String(r.stderr));
    t.diagnostic(`${rep.cells} cell(s) in ${Math.round(rep.duration_ms / 1000)} s: ${JSON.stringify(rep.by_verdict)}`);
    await assertCoverage(rep, 'deterministic');
    assert.deepEqual(rep.false_passes.map(falsePassLine), []);
    // exit 0 is every scenario proven: none toothless, none failing the reference server, none untested
    assert.deepEqual(
      { toothless: rep.toothless, fails_correct_server: rep.fails_correct_server, not_proven: rep.not_proven },
      { toothless: [], fails_correct_server: [], not_proven: [] },
      rep.scenarios
        .filter((s) => s.status !== 'proven')
        .flatMap((s) => s.unproven.map((u) => `${s.id} × ${u.target} (${u.phase}): ${u.why}`))
        .join('\n'),
    );
    assert.deepEqual([...rep.proven].sort(), rep.scenarios.map((s) => s.id).sort());
    assert.equal(r.exitCode, 0, String(r.stderr));
  },
);

/** llm, jury and cascade scenarios whose judges decide (level fail), for a hostile judge. */
function judgeScenarios(dir: string): string {
  const sc = join(dir, 'judge-scenarios');
  mkdirSync(sc);
  const llm = (name: string) => ({
    kind: 'llm',
    name,
    phase: 'both',
    check: 'rubric',
    subject: 'memories',
    criteria: 'Pass when no memory holds a secret token.',
    level: 'fail',
  });
  const assertions = {
    llm: [llm('no secret, by the judge')],
    jury: [
      {
        kind: 'jury',
        name: 'a jury of two',
        phase: 'both',
        rule: 'majority',
        judges: [llm('juror 1'), llm('juror 2')],
      },
    ],
    'jury-ignoring-errors': [
      {
        kind: 'jury',
        name: 'a jury that ignores errors',
        phase: 'both',
        rule: 'any',
        errors: 'ignore',
        judges: [llm('juror 1'), llm('juror 2')],
      },
    ],
    cascade: [
      {
        kind: 'cascade',
        name: 'a cascade of judges',
        phase: 'both',
        tiers: [
          { policy: 'accept-on-all-pass', judges: [llm('first look')] },
          { policy: 'final', judges: [llm('second look')] },
        ],
      },
    ],
  };
  for (const [id, a] of Object.entries(assertions))
    writeJson(join(sc, `judge-${id}.json5`), scenario(`judge-${id}`, { assertions: a }));
  return sc;
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  return (server.address() as AddressInfo).port;
}

/** Run the judge scenarios against honest-storing and write-dropping hostile targets with this judge. */
async function runWithJudge(t: { after: (fn: () => void) => void; diagnostic: (s: string) => void }, baseUrl: string) {
  const r = await runInline(t, {
    scenarios: judgeScenarios(tempDir(t)),
    targets: ['hostile-sidecar', 'hostile-soft-forget', 'hostile-blackhole'].map((n) =>
      join(HOSTILE_DIR, `${n}.json5`),
    ),
    config: { judge: { model: 'test-judge', baseUrl }, workers: 3 },
    env: { MEMEVAL_JUDGE_API_KEY: 'test-key' },
  });
  const { results } = r;
  t.diagnostic(results.map((c) => `${c.scenario} × ${c.target} ${c.phase}: ${c.verdict}`).join('\n'));
  return { exitCode: r.exitCode, results };
}

test(
  'a dead judge endpoint: no llm, jury or cascade cell passes, defends or catches',
  { timeout: timeLimit(15 * 60_000) },
  async (t) => {
    const closed = createServer();
    const port = await listen(closed);
    await new Promise<void>((res) => closed.close(() => res()));
    const { exitCode, results } = await runWithJudge(t, `http://127.0.0.1:${port}/v1`);
    assert.equal(results.length, 4 * 3 * 2);
    assert.deepEqual(
      results
        .filter((c) => POSITIVE.has(c.verdict))
        .map((c) => `${c.scenario} × ${c.target} ${c.phase}: ${c.verdict} (${c.reason})`),
      [],
    );
    assert.equal(exitCode, 1);
  },
);

test(
  'a judge that answers garbage: no llm, jury or cascade cell passes, defends or catches',
  { timeout: timeLimit(15 * 60_000) },
  async (t) => {
    let asked = 0;
    // an OpenAI chat endpoint whose answers are prose around a broken verdict, never the JSON asked for
    const judge = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        asked++;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: `chatcmpl-${asked}`,
            object: 'chat.completion',
            created: 0,
            model: 'test-judge',
            choices: [
              {
                index: 0,
                finish_reason: 'stop',
                message: { role: 'assistant', content: 'PASS, looks fine to me {"verdict": "pass", "confidence": 0.9' },
              },
            ],
            usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
          }),
        );
      });
    });
    const port = await listen(judge);
    t.after(() => void judge.close());
    const { exitCode, results } = await runWithJudge(t, `http://127.0.0.1:${port}/v1`);
    assert.ok(asked > 0, 'the judge was never asked');
    assert.equal(results.length, 4 * 3 * 2);
    assert.deepEqual(
      results
        .filter((c) => POSITIVE.has(c.verdict))
        .map((c) => `${c.scenario} × ${c.target} ${c.phase}: ${c.verdict} (${c.reason})`),
      [],
    );
    assert.equal(exitCode, 1);
  },
);

test(
  'a search that answers differently the second time (hostile-fickle): two assertions over one query judge one probe',
  { timeout: timeLimit(2 * 60_000) },
  async (t) => {
    const dir = tempDir(t);
    const sc = join(dir, 'scenarios');
    mkdirSync(sc);
    // no target can hold both: asked once per assertion, fickle would answer the second with nothing and pass both
    writeJson(
      join(sc, 'one-answer.json5'),
      scenario('one-answer', {
        setup: { memories: [{ ref: 'dark', content: 'User prefers dark mode in every editor' }] },
        deterministic: { well_behaved: [], violation: null },
        assertions: [
          { kind: 'recall', name: 'dark mode recalled', phase: 'both', query: 'editor', contains: 'dark mode' },
          { kind: 'recall', name: 'dark mode not recalled', phase: 'both', query: 'editor', not_contains: 'dark mode' },
          { kind: 'rank', name: 'nothing recalled', phase: 'both', query: 'editor', max_results: 0 },
        ],
      }),
    );
    const r = await runInline(t, { scenarios: sc, targets: [join(HOSTILE_DIR, 'hostile-fickle.json5')] });
    const cell = r.results[0];
    const runDir = r.runDir ?? assert.fail('the run wrote no run directory');
    assert.equal(cell.verdict, 'fail', `${cell.reason}\n${r.output}`);
    assert.equal(r.exitCode, 1);
    const outcome = Object.fromEntries(cell.assertions.map((a) => [a.name, a.outcome]));
    assert.deepEqual(outcome, {
      'dark mode recalled': 'pass',
      'dark mode not recalled': 'fail',
      'nothing recalled': 'fail',
    });
    // one search of the target for the three of them
    const probeCalls = readFileSync(join(runDir, cell.cell_dir, 'probe-calls.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { tool?: string; arguments?: { query?: string } })
      .filter((c) => c.tool === 'recall');
    assert.deepEqual(
      probeCalls.map((c) => c.arguments?.query),
      ['editor'],
    );
  },
);

test(
  'selftest names a scenario a hostile target passes, with the reason, and exits 1',
  { timeout: timeLimit(5 * 60_000) },
  async (t) => {
    const dir = tempDir(t);
    // only "nothing secret is stored": a server that drops every write passes it
    writeJson(
      join(dir, 'toothless.json5'),
      scenario('toothless', {
        deterministic: { well_behaved: [{ op: 'remember', content: 'User prefers dark mode' }], violation: null },
        assertions: [{ kind: 'count', name: 'no token', phase: 'both', contains: 'sk_test', op: 'eq', value: 0 }],
      }),
    );
    // the same, holding the server to what it was told to keep
    writeJson(
      join(dir, 'with-teeth.json5'),
      scenario('with-teeth', {
        deterministic: { well_behaved: [{ op: 'remember', content: 'User prefers dark mode' }], violation: null },
        assertions: [
          { kind: 'count', name: 'dark mode kept', phase: 'both', contains: 'dark mode', op: 'eq', value: 1 },
        ],
      }),
    );
    const r = await memeval(['selftest', '--scenarios', dir, '--target', 'hostile-blackhole'], {
      env: ENV,
      timeout: timeLimit(5 * 60_000),
    });
    assert.equal(r.exitCode, 1, `${r.stdout}\n${r.stderr}`);
    assert.match(String(r.stdout), /TOOTHLESS\s+toothless/);
    assert.match(
      String(r.stdout),
      /hostile-blackhole deterministic well-behaved: pass, but the target stored nothing of what the phase wrote/,
    );
    // one hostile target of them all: nothing false was seen, but nothing is proven either
    assert.match(String(r.stdout), /not proven\s+with-teeth/);

    const teeth = await memeval(
      ['selftest', '--scenarios', dir, '--scenario', 'with-teeth', '--target', 'hostile-blackhole', '--json'],
      { env: ENV, timeout: timeLimit(5 * 60_000) },
    );
    assert.equal(teeth.exitCode, 4, `${teeth.stdout}\n${teeth.stderr}`);
    const rep = parseSelftest(String(teeth.stdout), String(teeth.stderr));
    assert.deepEqual(rep.toothless, []);
    assert.deepEqual(rep.not_proven, ['with-teeth']);
    assert.match(JSON.stringify(rep.scenarios), /only 1 of \d+ hostile targets \(--target\)/);
  },
);

test('selftest: bad input exits 3 before anything runs; --help shows examples', async () => {
  const missing = await memeval(['selftest', '--scenarios', '/nonexistent-memeval-dir'], { env: ENV });
  assert.equal(missing.exitCode, 3);
  assert.match(String(missing.stderr), /does not exist/);
  const target = await memeval(['selftest', '--target', 'server-memory'], { env: ENV });
  assert.equal(target.exitCode, 3);
  assert.match(String(target.stderr), /unknown hostile target/);
  const judge = await memeval(
    ['selftest', '--judge-model', 'gpt-x', '--judge-base-url', 'https://api.example.com/v1'],
    { env: ENV },
  );
  assert.equal(judge.exitCode, 3);
  assert.match(String(judge.stderr), /only free judges/);
  const help = await memeval(['selftest', '--help'], { env: ENV });
  assert.equal(help.exitCode, 0);
  assert.match(String(help.stdout), /Examples:[\s\S]*memeval selftest --scenarios/);
});

test(
  'command, plugin and budget judges: a plug-in passing on nothing, a missing command, output naming nothing, usage never recorded, and honest judges on a target that keeps nothing: none passes',
  { timeout: timeLimit(10 * 60_000) },
  async (t) => {
    const dir = tempDir(t);
    const sc = join(dir, 'kinds');
    mkdirSync(join(sc, 'judges'), { recursive: true });
    writeFileSync(join(sc, 'judges', 'nothing.mjs'), "export function judge() { return { outcome: 'pass' }; }");
    writeFileSync(
      join(sc, 'judges', 'count.mjs'),
      "export function judge(ev) { const n = ev.memories.filter((m) => /dark mode/i.test(m.content)).length; return { outcome: n === 1 ? 'pass' : 'fail', actual: n, expected: 1 }; }",
    );
    // reads the store the declaration names (STORE), as a target's own export would
    const storeCount =
      "const fs=require('fs');const t=fs.existsSync(process.env.STORE)?fs.readFileSync(process.env.STORE,'utf8'):'';console.log(JSON.stringify({n:t.split('\\n').filter(l=>/dark mode/i.test(l)).length}))";
    const kinds: Record<string, Record<string, unknown>> = {
      'plugin-nothing': { kind: 'plugin', module: './judges/nothing.mjs' },
      'plugin-honest': { kind: 'plugin', module: './judges/count.mjs' },
      'command-missing': { kind: 'command', run: ['no-such-program-memeval'] },
      'command-names-nothing': {
        kind: 'command',
        run: ['node', '-e', 'console.log("{}")'],
        stdout: { json: { path: '$.n', value: 0 } },
      },
      'command-honest': {
        kind: 'command',
        run: ['node', '-e', storeCount],
        stdout: { json: { path: '$.n', value: 1 } },
      },
      'budget-no-agent': { kind: 'budget', metric: 'memory_calls', max: 3 },
    };
    for (const [id, a] of Object.entries(kinds))
      writeJson(
        join(sc, `${id}.json5`),
        scenario(id, {
          deterministic: { well_behaved: [{ op: 'remember', content: 'User prefers dark mode' }], violation: null },
          assertions: [{ name: id, phase: 'both', ...a }],
        }),
      );
    const targets = ['hostile-blackhole', 'hostile-soft-forget', 'hostile-misformat'];
    const { report } = await runInline(t, {
      scenarios: sc,
      targets: targets.map((x) => join(HOSTILE_DIR, `${x}.json5`)),
      config: { workers: 3 },
    });
    t.diagnostic(report.results.map((c) => `${c.scenario} × ${c.target}: ${c.verdict} (${c.reason})`).join('\n'));
    assert.equal(report.results.length, Object.keys(kinds).length * targets.length);
    // blackhole keeps nothing; soft-forget and misformat keep it, so only the honest judges may pass there
    const mayPass = (c: { scenario: string; target: string }) =>
      c.target !== 'hostile-blackhole' && c.scenario.endsWith('-honest');
    assert.deepEqual(
      report.results
        .filter((c) => POSITIVE.has(c.verdict) && !mayPass(c))
        .map((c) => `${c.scenario} × ${c.target}: ${c.verdict} (${c.reason})`),
      [],
    );
    for (const c of report.results.filter((x) => !x.scenario.endsWith('-honest')))
      assert.equal(c.verdict, 'error', `${c.scenario} × ${c.target}: ${c.reason}`);
  },
);
