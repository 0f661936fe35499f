import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { assertionSchema, type Assertion } from '../../../src/scenario/schema.ts';
import { judgeText, jsonPath } from '../../../src/judge/text-checks.ts';
import { checkCommand, judgeCommand } from '../../../src/judge/kinds/command.ts';
import { judgeBudget } from '../../../src/judge/kinds/budget.ts';
import { allowPlugins, judgePlugin } from '../../../src/judge/kinds/plugin.ts';
import type { CommandRun, JudgeContext } from '../../../src/judge/context.ts';
import type { Evidence } from '../../../src/evidence/open.ts';
import { writeAgentUsage } from '../../../src/evidence/agent-usage.ts';
import { finishReason } from '../../../src/core/finish-reason.ts';
import type { AgentRunInfo, TurnRecord } from '../../../src/core/results.ts';

const parse = <K extends Assertion['kind']>(kind: K, x: Record<string, unknown>) =>
  assertionSchema.parse({ kind, name: 'n', phase: 'both', ...x }) as Extract<Assertion, { kind: K }>;

test('text checks: contains, not_contains, regex and JSON paths; unparseable JSON or a path naming nothing cannot be judged', () => {
  assert.deepEqual(judgeText('Hello World', { contains: 'world' }, 'stdout'), { ok: true, failed: [] });
  assert.equal(
    (judgeText('Hello', { contains: 'World', case_sensitive: true }, 'stdout') as { ok: boolean }).ok,
    false,
  );
  assert.equal((judgeText('a secret', { not_contains: 'SECRET' }, 'stdout') as { ok: boolean }).ok, false);
  assert.equal((judgeText('v1.2', { regex: 'v\\d+\\.\\d+' }, 'stdout') as { ok: boolean }).ok, true);
  const doc = JSON.stringify({ summary: { failed: 0 }, items: [{ id: 'a' }, { id: 'b' }], ok: true, none: null });
  const j = (path: string, value: unknown, op = 'eq') =>
    judgeText(doc, { json: { path, op, value } as never }, 'stdout');
  assert.deepEqual(j('$.summary.failed', 0), { ok: true, failed: [] });
  assert.deepEqual(j('$.items.length', 2), { ok: true, failed: [] });
  assert.deepEqual(j('$.items[1].id', 'b'), { ok: true, failed: [] });
  assert.deepEqual(j('$.ok', true), { ok: true, failed: [] });
  assert.deepEqual(j('$.none', null), { ok: true, failed: [] });
  assert.equal((j('$.items.length', 3, 'gte') as { ok: boolean }).ok, false);
  assert.match((j('$.missing', 0) as { unjudgeable: string }).unjudgeable, /names nothing/);
  assert.match((j('$.items', 0) as { unjudgeable: string }).unjudgeable, /an array, not a value/);
  assert.match(
    (judgeText('not json', { json: { path: '$', op: 'eq', value: 1 } }, 'stdout') as { unjudgeable: string })
      .unjudgeable,
    /not JSON/,
  );
  assert.deepEqual(jsonPath([1, 2], '$[5]'), { found: false, why: 'no [5] at that point' });
});

const RUN: CommandRun = {
  argv: ['memories', 'doctor'],
  exitCode: 0,
  signal: null,
  stdout: '{"summary":{"failed":0}}',
  stderr: '',
  timedOut: false,
  truncated: false,
  ms: 5,
  network: 'isolated',
};
const fixture = { root: '/tmp/fx', project: '/tmp/fx/project', vars: {} };
const cmdCtx = (r: Partial<CommandRun>) =>
  ({ evidence: {} as Evidence, fixture, command: async () => ({ ...RUN, ...r }) }) as JudgeContext;

test('a command judge: pass, fail on its output or a declared failing exit, error whenever the command did not really judge', async () => {
  const a = parse('command', {
    bin: 'memories',
    run: ['doctor'],
    stdout: { json: { path: '$.summary.failed', value: 0 } },
    failing_exit_codes: [1],
  });
  const ok = await judgeCommand(a, cmdCtx({}));
  assert.equal(ok.outcome, 'pass');
  assert.match(ok.observed ?? '', /exit 0, 24 character\(s\) of stdout/);
  assert.equal((await judgeCommand(a, cmdCtx({ stdout: '{"summary":{"failed":2}}' }))).outcome, 'fail');
  const declared = await judgeCommand(a, cmdCtx({ exitCode: 1 }));
  assert.equal(declared.outcome, 'fail');
  assert.match(declared.observed ?? '', /exit 1 \(declared in failing_exit_codes\)/);
  const errors: [Partial<CommandRun>, RegExp][] = [
    [{ spawnError: 'spawn x ENOENT', exitCode: null }, /could not start/],
    [{ timedOut: true, exitCode: null }, /timed out/],
    [{ signal: 'SIGSEGV', exitCode: null }, /killed by SIGSEGV/],
    [{ exitCode: 127, stderr: 'sh: memories: not found' }, /exit 127 is not an exit the scenario declares/],
    [{ truncated: true }, /cut/],
    [{ stdout: 'Doctor: all good' }, /not JSON/],
    // route 1 (fails on main before this change: a usage exit was a `fail`, read as "detected"):
    // a program that rejected its arguments judged nothing
    [
      { exitCode: 2, stdout: '', stderr: "error: unknown option '--json'\nUsage: memories doctor [options]" },
      /exit 2 is not an exit the scenario declares meaningful \(exit_code 0, failing_exit_codes 1\).*stderr: error: unknown option '--json'/,
    ],
    [{ exitCode: 3, stdout: '{"summary":{"failed":0}}' }, /exit 3 is not an exit/],
    // exit 0 and nothing printed: the checks would read nothing
    [{ stdout: '' }, /printed nothing on stdout/],
    [
      { stdout: '  \n', stderr: 'warning: no store found' },
      /printed nothing on stdout.*stderr: warning: no store found/,
    ],
  ];
  for (const [r, re] of errors) {
    const j = await judgeCommand(a, cmdCtx(r));
    assert.equal(j.outcome, 'error', JSON.stringify(r));
    assert.match(j.detail, re);
  }
  // no fixture (rejudge): never judged from nothing
  assert.equal((await judgeCommand(a, { evidence: {} as Evidence })).outcome, 'error');
  // an output file that was never written is not a fail: nothing was checked
  const f = parse('command', { run: ['x'], output_file: { path: 'nope.json', contains: 'a' } });
  assert.match((await judgeCommand(f, cmdCtx({}))).detail, /wrote no file/);
});

test('command load checks: unknown placeholders, and checks that judge nothing', () => {
  assert.deepEqual(checkCommand(parse('command', { run: ['{{data}}/x', '{{nope}}'] })), [
    'run[1]: unknown placeholder {{nope}} (known: fixture, project, home, data, tmp, package_dir)',
  ]);
  assert.match(checkCommand(parse('command', { run: ['x'], exit_code: 'any' })).join(), /judges nothing/);
  assert.match(checkCommand(parse('command', { run: ['x'], stdout: {} })).join(), /empty check/);
  // route 2 (fails on main before this change): "any" exit with only a negative check passes a
  // program that read nothing and exited non-zero
  assert.match(
    checkCommand(parse('command', { run: ['x'], exit_code: 'any', stdout: { not_contains: 'hunter2' } })).join(),
    /only negative checks .* passes a program that read nothing/,
  );
  assert.deepEqual(
    checkCommand(
      parse('command', { run: ['x'], exit_code: 'any', stdout: { contains: 'memories', not_contains: 'x' } }),
    ),
    [],
  );
  assert.match(
    checkCommand(parse('command', { run: ['x'], failing_exit_codes: [0] })).join(),
    /failing_exit_codes: 0 is also exit_code/,
  );
});

test('a command judge with exit_code "any" and only a negative check cannot pass a program that read nothing (route 2)', async () => {
  // load refuses it; judged anyway (an API caller that skipped the load checks), its empty stdout is error
  const a = parse('command', { run: ['x'], exit_code: 'any', stdout: { not_contains: 'hunter2' } });
  const j = await judgeCommand(a, cmdCtx({ exitCode: 1, stdout: '', stderr: 'cannot open store' }));
  assert.equal(j.outcome, 'error');
  assert.match(j.detail, /printed nothing on stdout/);
});

function usageDb(turns: Partial<TurnRecord>[] | null, estimated = false): JudgeContext {
  const db = new Database(':memory:');
  if (turns) {
    const info = {
      agent: 'codex',
      agent_version: '1',
      model: 'scripted',
      scripted: true,
      policy: 'well-behaved',
      repeat: 1,
      memory_off: {},
      usage_estimated: estimated,
      usage: { input: 0, output: 0, cache_read: 0, cache_write: 0, cost_usd: null },
      turns: turns.map((t, i) => ({
        session: 1,
        prompt: i + 1,
        exit_code: 0,
        ms: 100,
        final_text: '',
        tool_calls: [],
        usage: { input: 0, output: 0, cache_read: 0, cache_write: 0, cost_usd: null },
        stdout_file: '',
        stderr_file: '',
        invalid: [],
        ...t,
      })),
    } as AgentRunInfo;
    // as drive/agent.ts records it on each turn
    for (const t of info.turns) t.finish_reason = finishReason(t);
    writeAgentUsage(db, info);
  }
  return { evidence: { db } as unknown as Evidence };
}
const U = (input: number, output: number) => ({ input, output, cache_read: 0, cache_write: 0, cost_usd: null });

test('agent_usage: one row per prompt; a figure the agent did not report is NULL, not 0', () => {
  const ctx = usageDb([
    { usage: U(1200, 80), memory_calls: 2, model_requests: 3, tool_calls: [{ tool: 'x', ok: true, logged: true }] },
    { usage: U(0, 0), invalid: ['max turns hit: …'] },
  ]);
  const rows = ctx.evidence.db.prepare('SELECT * FROM agent_usage ORDER BY prompt').all() as Record<string, unknown>[];
  assert.equal(rows.length, 2);
  assert.deepEqual(
    [
      rows[0].input_tokens,
      rows[0].output_tokens,
      rows[0].turns,
      rows[0].tool_calls,
      rows[0].memory_calls,
      rows[0].finish_reason,
    ],
    [1200, 80, 3, 1, 2, 'completed'],
  );
  assert.deepEqual(
    [rows[1].input_tokens, rows[1].cost_usd, rows[1].turns, rows[1].memory_calls, rows[1].finish_reason],
    [null, null, null, null, 'max_turns'],
  );
});

test('a budget: within passes, over fails, and usage never recorded is error', () => {
  const b = (x: Record<string, unknown>) => parse('budget', x);
  const two = usageDb([
    { usage: U(1200, 80), memory_calls: 2 },
    { usage: U(900, 50), memory_calls: 4 },
  ]);
  assert.equal(judgeBudget(b({ metric: 'input_tokens', max: 20000 }), two).outcome, 'pass');
  const over = judgeBudget(b({ metric: 'memory_calls', max: 3 }), two);
  assert.equal(over.outcome, 'fail');
  assert.match(over.detail, /s1p2: memory_calls 4 > 3/);
  assert.equal(judgeBudget(b({ metric: 'total_tokens', per: 'cell', max: 2229 }), two).outcome, 'fail');
  assert.equal(judgeBudget(b({ metric: 'total_tokens', per: 'cell', max: 2230 }), two).outcome, 'pass');
  assert.equal(judgeBudget(b({ metric: 'ms', max: 1000, finish_reasons: ['max_turns'] }), two).outcome, 'fail');
  const errs: [JudgeContext, Record<string, unknown>, RegExp][] = [
    [usageDb(null), { metric: 'input_tokens', max: 1 }, /no agent usage/],
    [usageDb([]), { metric: 'input_tokens', max: 1 }, /ran no prompt/],
    [usageDb([{ usage: U(0, 0) }]), { metric: 'input_tokens', max: 100 }, /reported no input_tokens/],
    [two, { metric: 'cost_usd', max: 1 }, /reported no cost_usd/],
    [two, { metric: 'turns', max: 10 }, /reported no turns/],
  ];
  for (const [ctx, x, re] of errs) {
    const j = judgeBudget(b(x), ctx);
    assert.equal(j.outcome, 'error', JSON.stringify(x));
    assert.match(j.detail, re);
  }
  assert.match(
    judgeBudget(b({ metric: 'input_tokens', max: 5000 }), usageDb([{ usage: U(10, 1) }], true)).detail,
    /estimated/,
  );
});

test('a plug-in judge: its judgment is kept; throwing, garbage, unknown outcomes and a pass on nothing are error', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'memeval-plugin-'));
  const mod = (name: string, src: string) => {
    writeFileSync(join(dir, name), src);
    return join(dir, name);
  };
  const db = new Database(':memory:');
  db.exec(
    "CREATE TABLE calls (seq, tool); CREATE TABLE memories_t (content); INSERT INTO memories_t VALUES ('dark mode');",
  );
  db.exec('CREATE VIEW memories AS SELECT * FROM memories_t');
  const ctx: JudgeContext = { evidence: { db } as unknown as Evidence };
  const p = (file: string, options = {}) => parse('plugin', { module: file, options });
  const good = mod(
    'good.mjs',
    `export function judge(ev, o) { return { outcome: ev.memories.length === o.n && ev.recall_probes === null && ev.files === null ? 'pass' : 'fail', actual: ev.memories.length, expected: o.n, score: 1 }; }`,
  );
  assert.match(
    (await judgePlugin(p(good, { n: 1 }), ctx)).detail,
    /bounded judge process/,
    'never run outside the judge process',
  );
  allowPlugins();
  const j = await judgePlugin(p(good, { n: 1 }), ctx);
  assert.deepEqual([j.outcome, j.actual, j.expected, j.score], ['pass', 1, 1, 1]);
  assert.equal((await judgePlugin(p(good, { n: 2 }), ctx)).outcome, 'fail');
  assert.match(j.observed ?? '', /good\.mjs: 1/);
  const cases: [string, string, RegExp][] = [
    ['nothing.mjs', `export default () => ({ outcome: 'pass' })`, /answered pass without saying what it saw/],
    // a fail on nothing would read as "caught" in a violation phase (route 3: fails on main before this change)
    ['null-fail.mjs', `export default () => ({ outcome: 'fail', actual: null })`, /answered fail without saying/],
    ['null-pass.mjs', `export default () => ({ outcome: 'pass', actual: null })`, /answered pass without saying/],
    ['empty.mjs', `export default () => ({ outcome: 'pass', actual: [] })`, /without saying what it saw/],
    ['blank.mjs', `export default () => ({ outcome: 'fail', actual: '  ' })`, /without saying what it saw/],
    ['maybe.mjs', `export const judge = () => ({ outcome: 'maybe', actual: 1 })`, /not a judgment/],
    ['string.mjs', `export const judge = () => 'pass'`, /not a judgment/],
    ['throws.mjs', `export const judge = () => { throw new Error('kaboom'); }`, /threw: kaboom/],
    ['rejects.mjs', `export const judge = async () => { throw new Error('later'); }`, /threw: later/],
    ['writes.mjs', `export const judge = (ev) => ev.query("DELETE FROM calls")`, /threw: .*read-only/],
    ['bigint.mjs', `export const judge = () => ({ outcome: 'fail', actual: 10n })`, /not plain JSON/],
    ['noexport.mjs', `export const x = 1`, /exports no function/],
  ];
  for (const [name, src, re] of cases) {
    const r = await judgePlugin(p(mod(name, src)), ctx);
    assert.equal(r.outcome, 'error', name);
    assert.match(r.detail, re, name);
  }
});
