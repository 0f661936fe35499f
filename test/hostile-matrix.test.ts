/**
 * The hostile-target matrix: every built-in scenario against every hostile target (eval/hostile/)
 * through `memeval selftest`, in the deterministic layer and in the agent layer (codex with the
 * scripted model). No cell may get a verdict that is false for its target (HOSTILE_RULES in
 * src/app/selftest.ts). The judge-shaped hostility (a dead endpoint, one that answers garbage)
 * is run against llm, jury and cascade scenarios written here. A new assertion kind, gate or
 * reporter belongs in this matrix before it is done.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { memeval, ROOT, scenario, tempDir, writeJson } from './helpers.js';

const ENV = { NO_COLOR: '1', FORCE_COLOR: '0', MEMEVAL_CACHE_DIR: process.env.MEMEVAL_CACHE_DIR ?? '' };
const POSITIVE = new Set(['pass', 'defended', 'detected']);
/** agent cells wait on the agent's and the proxy's start more than they compute */
const AGENT_WORKERS = '4';

interface FalsePass {
  scenario: string;
  target: string;
  layer: string;
  phase: string;
  verdict: string;
  why: string;
  cell_reason: string;
}

const line = (f: FalsePass) => `${f.scenario} × ${f.target} (${f.layer} ${f.phase}): ${f.verdict}, but ${f.why} [cell: ${f.cell_reason}]`;

interface Coverage {
  layer: string;
  cross_product: number;
  planned: number;
  ran: number;
  cannot_be_false: number;
}

function parseReport(stdout: string, stderr: string) {
  try {
    return JSON.parse(stdout) as {
      cells: number;
      coverage: Coverage[];
      scenarios: { id: string }[];
      by_verdict: Record<string, number>;
      false_passes: FalsePass[];
      toothless: string[];
      duration_ms: number;
    };
  } catch {
    throw new Error(`selftest printed no JSON report:\n${stdout}\n${stderr}`);
  }
}

/**
 * The layer covered the whole cross product of the built-in scenarios (counted here from the
 * folders) × the hostile declarations × each scenario's phases: every cell a rule could make
 * false ran, so the matrix cannot shrink silently.
 */
async function assertCoverage(rep: ReturnType<typeof parseReport>, layer: 'deterministic' | 'agent') {
  const { BUILTIN_SCENARIO_DIRS, hostileTargetNames, mayBeFalse } = await import('../src/app/selftest.js');
  const { loadScenarioDir } = await import('../src/app/load.js');
  const files = BUILTIN_SCENARIO_DIRS.flatMap((d) => readdirSync(d).filter((f) => /\.json5?$/.test(f)));
  const scenarios = BUILTIN_SCENARIO_DIRS.flatMap((d) => loadScenarioDir(d)).map((s) => s.scenario);
  const targets = hostileTargetNames();
  assert.equal(rep.scenarios.length, files.length, 'selftest left built-in scenario files out');
  assert.equal(targets.length, readdirSync(join(ROOT, 'eval', 'hostile')).filter((f) => f.endsWith('.json5')).length);
  const cells = scenarios.flatMap((s) => targets.flatMap((t) => (['well-behaved', ...(s.deterministic.violation ? ['violation'] : [])] as const).map((p) => ({ s, t, p }))));
  const planned = cells.filter((c) => mayBeFalse(c.s, c.t, layer, c.p)).length;
  const cov = rep.coverage.find((c) => c.layer === layer);
  assert.deepEqual(cov, { layer, cross_product: cells.length, planned, ran: planned, cannot_be_false: cells.length - planned });
}

test('deterministic layer: no built-in scenario passes falsely against any hostile target', { timeout: 20 * 60_000 }, async (t) => {
  const r = await memeval(['selftest', '--json', '--workers', '4'], { env: ENV, timeout: 20 * 60_000 });
  const rep = parseReport(String(r.stdout), String(r.stderr));
  t.diagnostic(`${rep.cells} cell(s) in ${Math.round(rep.duration_ms / 1000)} s: ${JSON.stringify(rep.by_verdict)}`);
  await assertCoverage(rep, 'deterministic');
  assert.deepEqual(rep.false_passes.map(line), []);
  assert.equal(r.exitCode, 0, String(r.stderr));
});

test('agent layer (codex, scripted model): no built-in scenario passes falsely against any hostile target', { timeout: 20 * 60_000 }, async (t) => {
  // every scenario, also those without prompts of their own, through one real agent; codex is the
  // cheapest per cell, and it stops servers as agents do (closes stdin, signals, kills the proxy)
  const r = await memeval(['selftest', '--json', '--workers', AGENT_WORKERS, '--layer', 'agent', '--agent', 'codex', '--install'], { env: ENV, timeout: 20 * 60_000 });
  const rep = parseReport(String(r.stdout), String(r.stderr));
  t.diagnostic(`${rep.cells} agent cell(s) in ${Math.round(rep.duration_ms / 1000)} s: ${JSON.stringify(rep.by_verdict)}`);
  await assertCoverage(rep, 'agent');
  assert.deepEqual(rep.false_passes.map(line), []);
  assert.equal(r.exitCode, 0, String(r.stderr));
});

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
    jury: [{ kind: 'jury', name: 'a jury of two', phase: 'both', rule: 'majority', judges: [llm('juror 1'), llm('juror 2')] }],
    'jury-ignoring-errors': [{ kind: 'jury', name: 'a jury that ignores errors', phase: 'both', rule: 'any', errors: 'ignore', judges: [llm('juror 1'), llm('juror 2')] }],
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
  for (const [id, a] of Object.entries(assertions)) writeJson(join(sc, `judge-${id}.json5`), scenario(`judge-${id}`, { assertions: a }));
  return sc;
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  return (server.address() as AddressInfo).port;
}

/** Run the judge scenarios against honest-storing and write-dropping hostile targets with this judge. */
async function runWithJudge(t: { after: (fn: () => void) => void; diagnostic: (s: string) => void }, baseUrl: string) {
  const dir = tempDir(t);
  const out = join(dir, 'runs');
  const targets = ['hostile-sidecar', 'hostile-soft-forget', 'hostile-blackhole'].map((n) => join('eval', 'hostile', `${n}.json5`));
  const r = await memeval(
    ['run', '--scenarios', judgeScenarios(dir), ...targets.flatMap((x) => ['--target', x]), '--judge-model', 'test-judge', '--judge-base-url', baseUrl, '--workers', '3', '--out', out],
    { env: { ...ENV, MEMEVAL_JUDGE_API_KEY: 'test-key' }, timeout: 10 * 60_000 },
  );
  const runs = readdirSync(out);
  assert.equal(runs.length, 1, `${r.stdout}\n${r.stderr}`);
  const report = JSON.parse(readFileSync(join(out, runs[0], 'report.json'), 'utf8')) as { results: { scenario: string; target: string; phase: string; verdict: string; reason: string }[] };
  t.diagnostic(report.results.map((c) => `${c.scenario} × ${c.target} ${c.phase}: ${c.verdict}`).join('\n'));
  return { exitCode: r.exitCode, results: report.results };
}

test('a dead judge endpoint: no llm, jury or cascade cell passes, defends or catches', { timeout: 15 * 60_000 }, async (t) => {
  const closed = createServer();
  const port = await listen(closed);
  await new Promise<void>((res) => closed.close(() => res()));
  const { exitCode, results } = await runWithJudge(t, `http://127.0.0.1:${port}/v1`);
  assert.equal(results.length, 4 * 3 * 2);
  assert.deepEqual(results.filter((c) => POSITIVE.has(c.verdict)).map((c) => `${c.scenario} × ${c.target} ${c.phase}: ${c.verdict} (${c.reason})`), []);
  assert.equal(exitCode, 1);
});

test('a judge that answers garbage: no llm, jury or cascade cell passes, defends or catches', { timeout: 15 * 60_000 }, async (t) => {
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
          choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'PASS, looks fine to me {"verdict": "pass", "confidence": 0.9' } }],
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
  assert.deepEqual(results.filter((c) => POSITIVE.has(c.verdict)).map((c) => `${c.scenario} × ${c.target} ${c.phase}: ${c.verdict} (${c.reason})`), []);
  assert.equal(exitCode, 1);
});

test('selftest names a scenario a hostile target passes, with the reason, and exits 1', { timeout: 5 * 60_000 }, async (t) => {
  const dir = tempDir(t);
  // only "nothing secret is stored": a server that drops every write passes it
  writeJson(
    join(dir, 'toothless.json5'),
    scenario('toothless', { deterministic: { well_behaved: [{ op: 'remember', content: 'User prefers dark mode' }], violation: null }, assertions: [{ kind: 'count', name: 'no token', phase: 'both', contains: 'sk_test', op: 'eq', value: 0 }] }),
  );
  // the same, holding the server to what it was told to keep
  writeJson(
    join(dir, 'with-teeth.json5'),
    scenario('with-teeth', { deterministic: { well_behaved: [{ op: 'remember', content: 'User prefers dark mode' }], violation: null }, assertions: [{ kind: 'count', name: 'dark mode kept', phase: 'both', contains: 'dark mode', op: 'eq', value: 1 }] }),
  );
  const r = await memeval(['selftest', '--scenarios', dir, '--target', 'hostile-blackhole'], { env: ENV, timeout: 5 * 60_000 });
  assert.equal(r.exitCode, 1, `${r.stdout}\n${r.stderr}`);
  assert.match(String(r.stdout), /TOOTHLESS toothless/);
  assert.match(String(r.stdout), /hostile-blackhole deterministic well-behaved: pass, but the target stored nothing of what the phase wrote/);
  assert.match(String(r.stdout), /ok\s+with-teeth/);

  const teeth = await memeval(['selftest', '--scenarios', dir, '--scenario', 'with-teeth', '--target', 'hostile-blackhole', '--json'], { env: ENV, timeout: 5 * 60_000 });
  assert.equal(teeth.exitCode, 0, `${teeth.stdout}\n${teeth.stderr}`);
  assert.deepEqual(parseReport(String(teeth.stdout), String(teeth.stderr)).toothless, []);
});

test('selftest: bad input exits 3 before anything runs; --help shows examples', async () => {
  const missing = await memeval(['selftest', '--scenarios', '/nonexistent-memeval-dir'], { env: ENV });
  assert.equal(missing.exitCode, 3);
  assert.match(String(missing.stderr), /does not exist/);
  const target = await memeval(['selftest', '--target', 'server-memory'], { env: ENV });
  assert.equal(target.exitCode, 3);
  assert.match(String(target.stderr), /unknown hostile target/);
  const judge = await memeval(['selftest', '--judge-model', 'gpt-x', '--judge-base-url', 'https://api.example.com/v1'], { env: ENV });
  assert.equal(judge.exitCode, 3);
  assert.match(String(judge.stderr), /only free judges/);
  const help = await memeval(['selftest', '--help'], { env: ENV });
  assert.equal(help.exitCode, 0);
  assert.match(String(help.stdout), /Examples:[\s\S]*memeval selftest --scenarios/);
});

test('the rules: every hostile declaration has rules and every rule a declaration; conditions read the scenario', async () => {
  const { HOSTILE_RULES, hostileTargetNames, falseVerdictRule, mayBeFalse } = await import('../src/app/selftest.js');
  const { loadScenario } = await import('../src/scenario/loader.js');
  assert.deepEqual(HOSTILE_RULES.map((h) => h.target).sort(), hostileTargetNames().sort());
  const load = (f: string) => loadScenario(join(ROOT, 'scenarios', f)).scenario;
  const residue = load('forgotten-secret-leaves-no-residue.json5');
  const keys = load('secret-api-keys-not-stored.json5');
  const recall = load('cross-session-recall.json5');
  // the sidecar keeps the seeded token: its well-behaved pass is false; the key scenario's well-behaved phase writes no key
  assert.match(falseVerdictRule(residue, 'hostile-sidecar', 'deterministic', 'well-behaved', 'pass')?.why ?? '', /sidecar/);
  assert.equal(falseVerdictRule(keys, 'hostile-sidecar', 'deterministic', 'well-behaved', 'pass'), undefined);
  // a violation that only restarts writes nothing: an empty store catching it is a real catch
  assert.equal(falseVerdictRule(recall, 'hostile-blackhole', 'deterministic', 'violation', 'detected'), undefined);
  // a dropped violating write is neutralised: blackhole and refuse are caught by their well-behaved cell
  assert.equal(falseVerdictRule(keys, 'hostile-blackhole', 'deterministic', 'violation', 'defended'), undefined);
  assert.ok(falseVerdictRule(keys, 'hostile-blackhole', 'deterministic', 'well-behaved', 'pass'));
  // failing verdicts are never false passes; no-list matters to agents only
  assert.equal(falseVerdictRule(keys, 'hostile-refuse', 'deterministic', 'well-behaved', 'fail'), undefined);
  assert.equal(mayBeFalse(keys, 'hostile-no-list', 'deterministic', 'well-behaved'), false);
  assert.equal(mayBeFalse(keys, 'hostile-no-list', 'agent', 'well-behaved'), true);
  // recall-reading assertions, also the probe of a recall assertion in a real-model cell
  assert.ok(falseVerdictRule(recall, 'hostile-misformat', 'agent', 'violation', 'detected'));
  assert.equal(falseVerdictRule(keys, 'hostile-misformat', 'deterministic', 'violation', 'detected'), undefined);
});
