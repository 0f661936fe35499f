// The hostile matrix of memeval's own inputs: every assertion kind × every broken input its
// record names (scenario/kinds.ts `mutations`), made for real by src/selftest/mutations.ts and
// judged by the kind's real judge (through the time-limited judge process where the kind runs
// there). Each must end `error`, a fail-level abstention (which the verdict makes `error`), or be
// refused before any judge runs, in both phases: never a pass, and never a fail that a violation
// phase would read as the violation caught. A kind without a sample here does not compile; a
// kind whose record names no mutation, or a mutation no kind names, fails.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { phaseVerdict } from '../../../src/judge/verdict.ts';
import { openJudgeModel, type JudgeModel } from '../../../src/judge/llm/client.ts';
import { resolveJudgeConfig } from '../../../src/judge/llm/config.ts';
import { INPUT_MUTATIONS, KINDS, type InputMutation, type Kind } from '../../../src/scenario/kinds.ts';
import { assertionSchema, type Assertion } from '../../../src/scenario/schema.ts';
import { mutate } from '../../../src/selftest/mutations.ts';
import type { Judgment } from '../../../src/judge/judgment.ts';

const parse = (x: Record<string, unknown>): Assertion => assertionSchema.parse({ name: 'n', phase: 'both', ...x });
const sql = (name: string) => ({ kind: 'sql', name, query: 'SELECT count(*) FROM memories', op: 'eq', value: 1 });

/** One well-formed assertion per kind, which would decide on a healthy cell: what each mutation is applied to. */
const SAMPLES: { [K in Kind]: Record<string, unknown> } = {
  count: { kind: 'count', contains: 'dark mode', op: 'eq', value: 0 },
  sql: { kind: 'sql', query: 'SELECT count(*) FROM memories', op: 'eq', value: 0 },
  absent: { kind: 'absent', text: 'hunter2' },
  recall: { kind: 'recall', query: 'editor', not_contains: 'dark mode' },
  called: { kind: 'called', call_op: 'remember', op: 'gte', value: 0 },
  transcript: { kind: 'transcript', not_contains: 'hunter2', phase: 'real-model' },
  file: { kind: 'file', path: 'notes.md', exists: false },
  llm: { kind: 'llm', subject: 'memories', check: 'no-such-fact', fact: 'the password', level: 'fail' },
  rank: { kind: 'rank', query: 'editor', max_results: 0 },
  command: { kind: 'command', run: ['prog'], stdout: { not_contains: 'hunter2' } },
  plugin: { kind: 'plugin', module: 'plugin.mjs' },
  budget: { kind: 'budget', metric: 'cost_usd', max: 1 },
  integrity: { kind: 'integrity' },
  durable: { kind: 'durable' },
  jury: { kind: 'jury', rule: 'majority', judges: [sql('j1'), sql('j2')] },
  cascade: { kind: 'cascade', tiers: [{ policy: 'final', judges: [sql('t1')] }] },
};

let model: JudgeModel;
let root: string;
before(async () => {
  model = await openJudgeModel(resolveJudgeConfig({ judgeModel: 'scripted' })!);
  root = mkdtempSync(join(tmpdir(), 'memeval-mutations-'));
});
after(async () => {
  await model.close();
  rmSync(root, { recursive: true, force: true });
});

test('every kind names the broken inputs that must make it error, and says what it must observe', () => {
  for (const [kind, t] of Object.entries(KINDS)) {
    assert.ok(t.mutations.length > 0, `${kind}: its record names no input mutation`);
    assert.ok(t.observes.trim(), `${kind}: its record does not say what it must observe`);
  }
  const used = new Set(Object.values(KINDS).flatMap((t) => t.mutations));
  for (const m of Object.keys(INPUT_MUTATIONS)) assert.ok(used.has(m as InputMutation), `no kind names ${m}`);
});

for (const kind of Object.keys(KINDS) as Kind[])
  test(`${kind} × ${KINDS[kind].mutations.join(', ')}: error in both phases, never pass or caught`, async () => {
    const results = await mutate(parse(SAMPLES[kind]), join(root, kind), model, 4000);
    assert.deepEqual(
      results.map((r) => r.mutation),
      [...KINDS[kind].mutations],
    );
    for (const r of results) {
      const what = `${kind} × ${r.mutation}: ${r.outcome} (${r.detail})`;
      assert.equal(r.false, false, what);
      if (r.outcome === 'refused') {
        assert.match(r.detail, /views\.memories/, what);
        continue;
      }
      assert.ok(r.outcome === 'error' || r.outcome === 'abstain', what);
      const j = {
        name: r.assertion,
        kind,
        phase: 'both',
        outcome: r.outcome,
        passed: null,
        actual: null,
        expected: null,
        detail: r.detail,
      } as Judgment;
      for (const judgedAs of ['well-behaved', 'violation'] as const) {
        const v = phaseVerdict({
          judgedAs,
          expectation: 'detect',
          refusedCalls: 0,
          judgments: [j],
          violationWrites: [{ seq: 1, op: 'remember', tool: 'save', refused: false }],
        });
        assert.equal(v.verdict, 'error', `${what} (${judgedAs}): ${v.verdict}: ${v.reason}`);
        // as a precondition beside a check that decided: the broken guard still leaves the cell error
        const check = { ...j, name: 'check', outcome: 'pass', passed: true, observed: '1 row' } as Judgment;
        const g = phaseVerdict({
          judgedAs,
          expectation: 'defend-or-detect',
          refusedCalls: 0,
          judgments: [check, { ...j, precondition: true }],
          violationWrites: [{ seq: 1, op: 'remember', tool: 'save', refused: false }],
        });
        assert.equal(g.verdict, 'error', `${what} as a precondition (${judgedAs}): ${g.verdict}: ${g.reason}`);
      }
    }
  });

test('the samples decide on a healthy cell, so a mutation that leaves them undecided is what made the difference', async () => {
  const { mutationCell } = await import('../../../src/selftest/mutations.ts');
  const { openEvidence } = await import('../../../src/evidence/open.ts');
  const { runJudgesBounded } = await import('../../../src/judge/bounded.ts');
  const { storedRecall } = await import('../../../src/judge/probes.ts');
  const cell = mutationCell(root, 'healthy');
  const evidence = openEvidence(cell.dir);
  try {
    const plain = (['count', 'sql', 'absent', 'called', 'jury', 'cascade', 'integrity', 'durable'] as Kind[]).map((k) =>
      parse(SAMPLES[k]),
    );
    const js = await runJudgesBounded(plain, { evidence, recall: storedRecall(evidence) }, cell.dir, 4000);
    for (const j of js)
      assert.ok(j.outcome === 'pass' || j.outcome === 'fail', `${j.kind}: ${j.outcome} (${j.detail})`);
  } finally {
    evidence.close();
  }
});
