import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { memeval } from '../helpers.ts';
import { reportFromStdout, runInline, type Decl, type InlineConfig, type KitReport } from '../kit.ts';

// memeval's cache as the rest of the suite has it (MEMEVAL_CACHE_DIR when set, else the default)
const ENV = { NO_COLOR: '1' };

const SCENARIO = {
  schema_version: 1,
  id: 'judge-e2e',
  title: 'llm judges over a real store',
  description: 'run noise is caught by an llm judge and by a cascade whose cheap tier decides first',
  setup: {
    memories: [{ ref: 'seed', content: 'Deploys go through staging first' }],
    steps: [{ op: 'recall', query: 'staging' }],
  },
  deterministic: {
    well_behaved: [{ op: 'remember', content: 'User prefers pnpm over npm' }],
    violation: { expectation: 'detect', steps: [{ op: 'remember', content: 'tests: 3 failed at 14:02' }] },
  },
  assertions: [
    { kind: 'count', name: 'pnpm stored', phase: 'well-behaved', contains: 'pnpm', op: 'eq', value: 1 },
    {
      kind: 'called',
      name: 'setup searches are not phase steps',
      phase: 'both',
      call_op: 'recall',
      op: 'eq',
      value: 0,
    },
    {
      kind: 'llm',
      name: 'no run noise',
      phase: 'both',
      check: 'no-such-fact',
      subject: 'memories',
      fact: 'transient run state',
      level: 'fail',
      scripted: { verdict: 'pass', rules: [{ when: '3 failed', verdict: 'fail', reasoning: 'a test tally' }] },
    },
    {
      kind: 'llm',
      name: 'recall relevant',
      phase: 'both',
      check: 'relevance',
      subject: 'recall',
      query: 'staging',
      scripted: { verdict: 'pass' },
    },
    {
      kind: 'cascade',
      name: 'hygiene cascade',
      phase: 'both',
      tiers: [
        { policy: 'reject-on-any-fail', judges: [{ kind: 'absent', name: 'no 14:02', text: '14:02' }] },
        {
          policy: 'final',
          judges: [
            {
              kind: 'llm',
              name: 'deploy flow kept',
              check: 'contains-fact',
              subject: 'memories',
              fact: 'the deploy flow',
              scripted: { verdict: 'pass' },
            },
          ],
        },
      ],
    },
  ],
};

/** The scenario (or a variant of it) on server-memory, a cell at a time. */
const judged = (config: InlineConfig = {}, scenario: Decl = SCENARIO) => ({
  scenarios: [scenario],
  targets: ['server-memory'],
  config: { workers: 1, ...config },
});

const cell = (report: KitReport, phase: string) => report.results.find((r) => r.phase === phase) as Record<string, any>;
const named = (c: Record<string, any>, name: string) => c.assertions.find((a: { name: string }) => a.name === name);
/** what report.json says about judging (the schema passes it through undeclared) */
const judgesOf = (report: KitReport) => (report as Record<string, any>).judges;

test('without a judge model llm assertions abstain, the cheap tier still decides, and console and report say how many per scenario; rejudge then judges them', async (t) => {
  const r = await runInline(t, { mode: 'cli', ...judged(), env: ENV });
  // fail-level llm checks that were not made: the well-behaved cell cannot pass
  assert.equal(r.exitCode, 1, r.output);
  assert.match(
    r.stdout,
    /warning: no judge model configured: 5 llm assertion\(s\) abstained, not judged \(judge-e2e: 5\)/,
  );
  const { report, out } = r;
  const dir = r.runDir!;
  assert.deepEqual(judgesOf(report).abstained_without_judge, { 'judge-e2e': 5 });
  const wb = cell(report, 'well-behaved');
  assert.equal(wb.verdict, 'error', wb.reason);
  assert.match(wb.reason, /assertion\(s\) abstained: no run noise .*hygiene cascade/);
  assert.equal(named(wb, 'no run noise').outcome, 'abstain');
  assert.equal(named(wb, 'hygiene cascade').outcome, 'abstain');
  assert.equal(named(wb, 'setup searches are not phase steps').outcome, 'pass');
  assert.ok(
    wb.steps.some((s: { stage: string; op: string }) => s.stage === 'setup' && s.op === 'recall'),
    'setup steps are recorded as setup',
  );
  const vi = cell(report, 'violation');
  assert.equal(vi.verdict, 'detected', vi.reason);
  assert.equal(named(vi, 'hygiene cascade').cascade.decided_by_tier, 0);
  assert.equal(named(vi, 'hygiene cascade').cascade.model_judges_skipped, 1);

  // re-judge the saved evidence with the scripted judge: nothing is replayed
  const rj = await memeval(['rejudge', dir, '--judge-model', 'scripted', '--json'], { env: ENV });
  assert.equal(rj.exitCode, 0, String(rj.stderr));
  const again = reportFromStdout(rj);
  assert.equal((again as Record<string, any>).rejudged_from.run_id, report.run_id);
  assert.notEqual(again.run_id, report.run_id);
  const wb2 = cell(again, 'well-behaved');
  assert.equal(wb2.verdict, 'pass', wb2.reason);
  assert.equal(named(wb2, 'no run noise').outcome, 'pass');
  assert.equal(named(wb2, 'no run noise').rejudge.previous_outcome, 'abstain');
  assert.equal(named(wb2, 'hygiene cascade').outcome, 'pass');
  // the recall probe the run stored is judged again, without asking the target
  assert.equal(named(wb2, 'recall relevant').outcome, 'pass', named(wb2, 'recall relevant').detail);
  assert.equal(named(wb2, 'recall relevant').rejudge.rejudged, true);
  const vi2 = cell(again, 'violation');
  assert.equal(vi2.verdict, 'detected');
  assert.equal(named(vi2, 'no run noise').outcome, 'fail');
  assert.equal(named(vi2, 'no run noise').reasoning, 'a test tally');
  assert.deepEqual(judgesOf(again).abstained_without_judge, {});
  assert.ok(
    readdirSync(out).some((d) => d.startsWith('rejudge-')),
    'the new report is written beside the run',
  );

  // only llm judges, and a cell whose evidence is gone says why
  rmSync(join(dir, vi.cell_dir, 'evidence.db'));
  const only = await memeval(['rejudge', dir, '--judge-model', 'scripted', '--only', 'llm', '--json'], { env: ENV });
  const o = reportFromStdout(only);
  assert.match(named(cell(o, 'well-behaved'), 'pnpm stored').rejudge.why, /--only llm/);
  assert.match(cell(o, 'violation').rejudge.why, /evidence cannot be opened: .*no evidence DB/);
  assert.equal(cell(o, 'violation').verdict, 'detected', 'the old verdict is kept, not invented');
});

test('with the scripted judge every llm call is in the report: prompt, raw answer, verdict, reasoning, confidence, model, tokens, latency, cost', async (t) => {
  const r = await runInline(t, judged({ judge: { model: 'scripted' } }));
  assert.equal(r.exitCode, 0, r.output);
  const { report } = r;
  const vi = cell(report, 'violation');
  assert.equal(vi.verdict, 'detected');
  const j = named(vi, 'no run noise');
  assert.equal(j.outcome, 'fail');
  const call = j.llm.calls[0];
  for (const k of ['prompt', 'raw', 'parsed', 'model', 'input_tokens', 'output_tokens', 'latency_ms', 'cost_usd'])
    assert.ok(k in call, k);
  assert.match(call.prompt, /tests: 3 failed at 14:02/);
  assert.equal(call.parsed.verdict, 'fail');
  assert.equal(call.cost_usd, 0);
  assert.equal(j.llm.confidence, 0.9);
  const rel = named(cell(report, 'well-behaved'), 'recall relevant');
  assert.equal(rel.level, 'warn');
  assert.equal(rel.outcome, 'pass');
  assert.match(rel.llm.calls[0].prompt, /Deploys go through staging first/);
  assert.equal(judgesOf(report).model.model, 'scripted');
  assert.equal(judgesOf(report).cost_usd, 0);
  assert.ok(judgesOf(report).model_calls >= 5);
});

test('a judge off this machine is blocked without --i-understand-model-cost (exit 2); a loopback judge is free, and an unreachable one is an error, never a pass', async (t) => {
  const blocked = await runInline(t, {
    scenarios: [SCENARIO],
    config: { judge: { model: 'gpt-judge-x' } },
    env: { OPENAI_API_KEY: 'sk-never-written' },
  });
  assert.equal(blocked.exitCode, 2, blocked.output);
  const { report } = blocked;
  assert.equal(report.status, 'blocked');
  assert.match(report.reason ?? '', /not on this machine and costs money: it needs --i-understand-model-cost/);
  assert.doesNotMatch(readFileSync(blocked.reportPath!, 'utf8'), /sk-never-written/);

  const local = await runInline(t, judged({ judge: { model: 'llama-local', baseUrl: 'http://127.0.0.1:9/v1' } }));
  assert.equal(local.exitCode, 1, local.output);
  const wb = cell(local.report, 'well-behaved');
  assert.equal(wb.verdict, 'error');
  assert.equal(named(wb, 'no run noise').outcome, 'error');
  assert.match(named(wb, 'no run noise').detail, /judge model request failed/);
  assert.equal(named(wb, 'no run noise').llm.calls[0].cost_usd, 0);
});

test('a juror naming a model off this machine blocks the run like a remote default judge', async (t) => {
  const s = structuredClone(SCENARIO) as Record<string, any>;
  s.assertions.push({
    kind: 'jury',
    name: 'two models',
    phase: 'both',
    rule: 'any',
    judges: [
      { kind: 'llm', name: 'a', check: 'rubric', subject: 'memories', criteria: 'x', scripted: { verdict: 'pass' } },
      {
        kind: 'llm',
        name: 'b',
        check: 'rubric',
        subject: 'memories',
        criteria: 'x',
        model: 'gpt-judge-x',
        base_url: 'https://judge.example.com/v1',
      },
    ],
  });
  const r = await runInline(t, { scenarios: [s], config: { judge: { model: 'scripted' } } });
  assert.equal(r.exitCode, 2, r.output);
  assert.match(r.report.reason ?? '', /gpt-judge-x at https:\/\/judge\.example\.com\/v1 is not on this machine/);
});

/** A loopback OpenAI-compatible endpoint whose judge answers only prose, never the JSON asked for. */
async function garbageJudge(t: { after: (fn: () => void) => void }): Promise<{ url: string; requests: () => number }> {
  let requests = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests++;
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          id: `chatcmpl-${requests}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: 'llama-garbage',
          choices: [
            {
              index: 0,
              finish_reason: 'stop',
              message: { role: 'assistant', content: 'Looks INCORRECT to me, so I would fail it. Or maybe not.' },
            },
          ],
          usage: { prompt_tokens: 10, completion_tokens: 12, total_tokens: 22 },
        }),
      );
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  t.after(() => new Promise<void>((ok) => server.close(() => ok())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests: () => requests };
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((ok) => s.listen(0, '127.0.0.1', ok));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((ok) => s.close(() => ok()));
  return port;
}

/** Only the violation phase has a jury of llm judges: what it says there alone decides the exit code. */
function juryScenario(): Decl {
  const s = structuredClone(SCENARIO) as Record<string, any>;
  const juror = (name: string) => ({
    kind: 'llm',
    name,
    check: 'no-such-fact',
    subject: 'memories',
    fact: 'transient run state',
  });
  s.assertions = [
    { kind: 'count', name: 'pnpm stored', phase: 'well-behaved', contains: 'pnpm', op: 'eq', value: 1 },
    {
      kind: 'jury',
      name: 'noise jury',
      phase: 'violation',
      rule: 'majority',
      judges: [juror('j1'), juror('j2'), juror('j3')],
    },
  ];
  return s;
}

test('a jury whose judges all answer garbage is an error in the violation phase, not "detected", and the run fails', async (t) => {
  const judge = await garbageJudge(t);
  const r = await runInline(t, {
    mode: 'cli',
    ...judged({ judge: { model: 'llama-garbage', baseUrl: judge.url } }, juryScenario()),
    env: ENV,
  });
  assert.equal(r.exitCode, 1, r.output);
  assert.equal(judge.requests(), 9, 'three jurors, each asked three times');
  const { report } = r;
  assert.equal(cell(report, 'well-behaved').verdict, 'pass');
  const vi = cell(report, 'violation');
  assert.equal(vi.verdict, 'error', vi.reason);
  const jury = named(vi, 'noise jury');
  assert.equal(jury.outcome, 'error');
  assert.match(jury.detail, /no quorum: 0 of 3 jurors decided \(quorum 2\)/);
  assert.ok(jury.members.every((m: { outcome: string }) => m.outcome === 'error'));
  assert.match(
    r.stdout,
    /warning: judging did not happen .*judge-e2e: 3 judge error\(s\), 0 abstention\(s\), 1 jury\/cascade without quorum/,
  );
  assert.deepEqual(judgesOf(report).not_judged, { 'judge-e2e': { errors: 3, abstentions: 0, no_quorum: 1 } });
});

test('a jury whose judge endpoint is dead is an error in the violation phase, not "detected"', async (t) => {
  const port = await closedPort();
  const r = await runInline(
    t,
    judged({ judge: { model: 'llama-dead', baseUrl: `http://127.0.0.1:${port}/v1` } }, juryScenario()),
  );
  assert.equal(r.exitCode, 1, r.output);
  const vi = cell(r.report, 'violation');
  assert.equal(vi.verdict, 'error', vi.reason);
  assert.match(named(vi, 'noise jury').detail, /no quorum: 0 of 3 jurors decided .*judge model request failed/);
});

test('a jury declaring errors: "fail" is refused at load (exit 3) with the fix', async (t) => {
  const s = structuredClone(SCENARIO) as Record<string, any>;
  s.assertions.push({
    kind: 'jury',
    name: 'old jury',
    phase: 'both',
    rule: 'any',
    errors: 'fail',
    judges: [{ kind: 'count', name: 'c', op: 'gte', value: 0 }],
  });
  const r = await runInline(t, { scenarios: [s], targets: ['server-memory'] });
  assert.equal(r.exitCode, 3, r.output);
  assert.match(r.output, /errors: "fail"` is no longer accepted.*use "ignore" .* or "error"/);
});

test('judge errors, abstentions and juries without quorum are counted per scenario in the console and in report.json, even at level warn', async (t) => {
  const s = structuredClone(SCENARIO) as Record<string, any>;
  const llm = (name: string, scripted: Record<string, unknown>) => ({
    kind: 'llm',
    name,
    check: 'rubric',
    subject: 'memories',
    criteria: 'durable facts only',
    scripted,
  });
  s.assertions = [
    ...s.assertions.slice(0, 2),
    { ...llm('unreadable', { verdict: 'pass', quirk: 'invalid-json' }), phase: 'well-behaved' },
    { ...llm('unsure', { verdict: 'pass', confidence: 0.3 }), phase: 'both' },
    {
      kind: 'jury',
      name: 'unsure jury',
      phase: 'well-behaved',
      rule: 'majority',
      level: 'warn',
      judges: [
        llm('u1', { verdict: 'pass', confidence: 0.3 }),
        llm('u2', { verdict: 'pass', confidence: 0.3 }),
        llm('sure', { verdict: 'pass' }),
      ],
    },
    { kind: 'count', name: 'no tally', phase: 'both', contains: '14:02', op: 'eq', value: 0 },
  ];
  const r = await runInline(t, { mode: 'cli', ...judged({ judge: { model: 'scripted' } }, s), env: ENV });
  assert.equal(r.exitCode, 0, r.output);
  const { report } = r;
  assert.equal(cell(report, 'well-behaved').verdict, 'pass');
  assert.equal(cell(report, 'violation').verdict, 'detected');
  // well-behaved: unreadable (error), unsure, u1, u2 (abstain), the jury (no quorum); violation: unsure
  assert.deepEqual(judgesOf(report).not_judged, { 'judge-e2e': { errors: 1, abstentions: 4, no_quorum: 1 } });
  assert.match(
    r.stdout,
    /warning: judging did not happen for 6 judgment\(s\) \(judge-e2e: 1 judge error\(s\), 4 abstention\(s\), 1 jury\/cascade without quorum\)/,
  );
  assert.ok(report.warnings.some((w) => /judging did not happen/.test(w)));
});
