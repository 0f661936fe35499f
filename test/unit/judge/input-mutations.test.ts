// The hostile matrix of memeval's own inputs: every assertion kind × every broken input its
// record names (scenario/kinds.ts `mutations`), each applied to the kind's real judge over a real
// evidence DB, through the time-limited judge process where the kind runs there. Each must end
// `error` (or a fail-level abstention, which the verdict makes `error`) in both phases: never a
// pass, and never a fail that a violation phase would read as the violation caught. A kind added
// without a sample here, or a mutation without an implementation, does not compile; a kind
// whose record names no mutation fails.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { execa } from 'execa';
import { buildEvidence } from '../../../src/evidence/build.ts';
import { EvidenceError, openEvidence, type Evidence } from '../../../src/evidence/open.ts';
import { storeRecallProbes } from '../../../src/evidence/recall-probes.ts';
import { writeAgentUsage } from '../../../src/evidence/agent-usage.ts';
import { runJudgesBounded } from '../../../src/judge/bounded.ts';
import type { CommandRequest, CommandRun, JudgeContext } from '../../../src/judge/context.ts';
import { storedRecall } from '../../../src/judge/probes.ts';
import { phaseVerdict } from '../../../src/judge/verdict.ts';
import { openJudgeModel, type JudgeModel } from '../../../src/judge/llm/client.ts';
import { resolveJudgeConfig } from '../../../src/judge/llm/config.ts';
import { INPUT_MUTATIONS, KINDS, type InputMutation, type Kind } from '../../../src/scenario/kinds.ts';
import { assertionSchema, type Assertion } from '../../../src/scenario/schema.ts';
import { targetSchema } from '../../../src/targets/schema.ts';
import type { AgentRunInfo } from '../../../src/core/results.ts';

const parse = (x: Record<string, unknown>): Assertion => assertionSchema.parse({ name: 'n', phase: 'both', ...x });

/** One well-formed assertion per kind: what each mutation is applied to. */
const SAMPLES: { [K in Kind]: Record<string, unknown> } = {
  count: { kind: 'count', contains: 'dark mode', op: 'eq', value: 0 },
  sql: { kind: 'sql', query: 'SELECT count(*) FROM memories', op: 'eq', value: 0 },
  absent: { kind: 'absent', text: 'hunter2' },
  recall: { kind: 'recall', query: 'editor', not_contains: 'dark mode' },
  called: { kind: 'called', call_op: 'remember', op: 'gte', value: 0 },
  transcript: { kind: 'transcript', not_contains: 'hunter2', phase: 'real-model' },
  file: { kind: 'file', path: 'notes.md', not_contains: 'hunter2' },
  llm: { kind: 'llm', subject: 'memories', check: 'no-such-fact', fact: 'the password', level: 'fail' },
  rank: { kind: 'rank', query: 'editor', max_results: 0 },
  command: { kind: 'command', run: ['prog'], stdout: { not_contains: 'hunter2' } },
  plugin: { kind: 'plugin', module: 'plugin.mjs' },
  budget: { kind: 'budget', metric: 'cost_usd', max: 1 },
  jury: {
    kind: 'jury',
    rule: 'majority',
    judges: [
      { kind: 'sql', name: 'j1', query: 'SELECT count(*) FROM memories', op: 'eq', value: 0 },
      { kind: 'sql', name: 'j2', query: 'SELECT count(*) FROM memories', op: 'eq', value: 0 },
    ],
  },
  cascade: {
    kind: 'cascade',
    tiers: [
      {
        policy: 'final',
        judges: [{ kind: 'sql', name: 't1', query: 'SELECT count(*) FROM memories', op: 'eq', value: 0 }],
      },
    ],
  },
};

/** A real cell: an SQLite store with one memory, its evidence, and a fixture folder. */
interface Cell {
  dir: string;
  fixture: { root: string; project: string; vars: Record<string, string> };
}

function makeCell(root: string, name: string): Cell {
  const dir = join(root, name);
  const data = join(dir, 'fixture', 'data');
  const project = join(dir, 'fixture', 'project');
  mkdirSync(data, { recursive: true });
  mkdirSync(project, { recursive: true });
  const store = new Database(join(data, 's.db'));
  store.exec("CREATE TABLE items (id TEXT, body TEXT); INSERT INTO items VALUES ('1', 'User prefers dark mode');");
  store.close();
  const decl = targetSchema.parse({
    name: 'mutation-test',
    description: 'a SQLite store made by the test',
    server: { command: 'true' },
    store: { format: 'sqlite', path: '{{data}}/s.db' },
    views: {
      memories:
        'SELECT id, body AS content, NULL AS category, NULL AS source, NULL AS subject, NULL AS created_at, 0 AS is_deleted FROM store.items',
    },
    ops: { remember: [{ tool: 'save', args: { text: '{{content}}' } }] },
  });
  buildEvidence(decl, join(data, 's.db'), join(dir, 'cell'), []).close();
  return { dir: join(dir, 'cell'), fixture: { root: join(dir, 'fixture'), project, vars: {} } };
}

/** A program the command judge runs, for real: node with a script. */
function program(script: string): (r: CommandRequest) => Promise<CommandRun> {
  return async () => {
    const t0 = performance.now();
    const r = await execa(process.execPath, ['-e', script], { reject: false });
    return {
      argv: ['prog'],
      exitCode: r.exitCode ?? null,
      signal: r.signal ?? null,
      stdout: String(r.stdout),
      stderr: String(r.stderr),
      timedOut: false,
      truncated: false,
      ms: performance.now() - t0,
      network: 'none',
    };
  };
}

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

interface Mutated {
  a: Assertion;
  ctx: JudgeContext;
}
type Mutate = (a: Assertion, cell: Cell) => Mutated | Promise<Mutated>;

const base = (cell: Cell, evidence: Evidence = openEvidence(cell.dir)): JudgeContext => ({
  evidence,
  recall: storedRecall(evidence),
  fixture: cell.fixture,
  judgeModel: model,
  transcript: 'The user prefers dark mode.',
  command: program("process.stdout.write('memories: 1')"),
});

const storeProbe = (cell: Cell, query: string, o: { is_error?: boolean; unreadable?: string | null }) =>
  storeRecallProbes(cell.dir, [
    {
      query,
      result_text: o.is_error ? 'Error: search failed' : 'garbled',
      items: [],
      itemised: false,
      is_error: o.is_error ?? false,
      unreadable: o.unreadable ?? null,
      ms: 1,
      ts: new Date().toISOString(),
    },
  ]);

const plugin = (cell: Cell, a: Assertion, src: string): Mutated => {
  const file = join(cell.dir, '..', 'plugin.mjs');
  writeFileSync(file, src);
  return { a: { ...a, module: file } as Assertion, ctx: base(cell) };
};

/** How each broken input is made, for real, for whichever kind names it. */
const MUTATE: { [M in InputMutation]: Mutate } = {
  'view-broken': (a, cell) => {
    // the store copy the view reads lost its table: the view names what is not there (opening
    // the evidence refuses it, so no judge reads a view that cannot be read)
    const db = new Database(join(cell.dir, 'work', 's.db'));
    db.exec('DROP TABLE items');
    db.close();
    return { a, ctx: base(cell) };
  },
  'table-missing': (a, cell) => {
    if (a.kind === 'sql') return { a: { ...a, query: 'SELECT count(*) FROM provider_calls' }, ctx: base(cell) };
    // an evidence written without the table the judge reads (an older memeval, another layer)
    const db = new Database(join(cell.dir, 'evidence.db'));
    db.exec('DROP TABLE IF EXISTS calls; DROP TABLE IF EXISTS agent_usage');
    db.close();
    return { a, ctx: base(cell) };
  },
  'probe-missing': (a, cell) => ({ a, ctx: base(cell) }),
  'probe-refused': (a, cell) => {
    storeProbe(cell, 'editor', { is_error: true, unreadable: 'the target refused the recall' });
    return { a, ctx: base(cell) };
  },
  'probe-unreadable': (a, cell) => {
    storeProbe(cell, 'editor', { unreadable: 'not the declared JSON: Unexpected token g' });
    return { a, ctx: base(cell) };
  },
  'transcript-missing': (a, cell) => ({ a, ctx: { ...base(cell), transcript: undefined } }),
  'fixture-gone': (a, cell) => ({ a, ctx: { ...base(cell), fixture: undefined, command: undefined } }),
  'program-usage-exit': (a, cell) => ({
    a,
    ctx: {
      ...base(cell),
      command: program(
        "process.stderr.write('error: unknown option --json\\nUsage: prog [options]\\n'); process.exit(2)",
      ),
    },
  }),
  'program-silent': (a, cell) => ({ a, ctx: { ...base(cell), command: program('process.exit(0)') } }),
  'program-stderr-only': (a, cell) => ({
    a,
    ctx: { ...base(cell), command: program("process.stderr.write('memories: 1\\n')") },
  }),
  'plugin-null': (a, cell) =>
    plugin(cell, a, "export const judge = () => ({ outcome: 'fail', actual: null, detail: 'saw nothing' });"),
  'plugin-garbage': (a, cell) => plugin(cell, a, "export const judge = () => 'pass';"),
  'plugin-throws': (a, cell) => plugin(cell, a, "export const judge = () => { throw new Error('no store'); };"),
  'plugin-hangs': (a, cell) => plugin(cell, a, 'export const judge = () => new Promise(() => {});'),
  'model-missing': (a, cell) => ({ a, ctx: { ...base(cell), judgeModel: null } }),
  'model-garbage': (a, cell) => ({
    a: { ...a, scripted: { verdict: 'pass', quirk: 'invalid-json' } } as Assertion,
    ctx: base(cell),
  }),
  'usage-unreported': (a, cell) => {
    const db = new Database(join(cell.dir, 'evidence.db'));
    const zero = { input: 0, output: 0, cache_read: 0, cache_write: 0, cost_usd: null };
    writeAgentUsage(db, {
      agent: 'codex',
      agent_version: '1',
      model: 'scripted',
      scripted: true,
      policy: 'well-behaved',
      repeat: 1,
      memory_off: {},
      usage_estimated: false,
      usage: zero,
      turns: [
        {
          session: 1,
          prompt: 1,
          exit_code: 0,
          ms: 100,
          final_text: 'done',
          tool_calls: [],
          usage: zero,
          stdout_file: '',
          stderr_file: '',
          invalid: [],
          finish_reason: 'completed',
        },
      ],
    } as unknown as AgentRunInfo);
    db.close();
    return { a, ctx: base(cell) };
  },
  // every member of the composition reads a table the evidence does not have
  'members-undecided': (a, cell) => {
    const broken = (m: Assertion) => ({ ...m, query: 'SELECT count(*) FROM provider_calls' }) as Assertion;
    const b =
      a.kind === 'jury'
        ? { ...a, judges: a.judges.map(broken) }
        : a.kind === 'cascade'
          ? { ...a, tiers: a.tiers.map((t) => ({ ...t, judges: t.judges.map(broken) })) }
          : a;
    return { a: b, ctx: base(cell) };
  },
};

test('every kind names the broken inputs that must make it error, and says what it must observe', () => {
  for (const [kind, t] of Object.entries(KINDS)) {
    assert.ok(t.mutations.length > 0, `${kind}: its record names no input mutation`);
    assert.ok(t.observes.trim(), `${kind}: its record does not say what it must observe`);
    for (const m of t.mutations) assert.ok(m in INPUT_MUTATIONS, `${kind}: unknown mutation ${m}`);
  }
  const used = new Set(Object.values(KINDS).flatMap((t) => t.mutations));
  for (const m of Object.keys(INPUT_MUTATIONS)) assert.ok(used.has(m as InputMutation), `no kind names ${m}`);
});

for (const kind of Object.keys(KINDS) as Kind[])
  for (const m of KINDS[kind].mutations)
    test(`${kind} × ${m}: error in both phases, never pass or caught`, async (t) => {
      const cell = makeCell(root, `${kind}-${m}`);
      let mutated: Mutated;
      try {
        mutated = await MUTATE[m](parse(SAMPLES[kind]), cell);
      } catch (e) {
        // refused before any judge ran: the cell is `error` (cell/evidence.ts), nothing decided
        assert.ok(e instanceof EvidenceError, `${kind} × ${m}: ${(e as Error).message}`);
        assert.match((e as Error).message, /views\.memories/);
        return;
      }
      const { a, ctx } = mutated;
      t.after(() => ctx.evidence.close());
      const [j] = await runJudgesBounded([a], ctx, cell.dir, 4000);
      assert.ok(
        j.outcome === 'error' || (j.outcome === 'abstain' && (j.level ?? 'fail') === 'fail'),
        `${kind} × ${m}: ${j.outcome} (${j.detail})`,
      );
      for (const judgedAs of ['well-behaved', 'violation'] as const) {
        const v = phaseVerdict({
          judgedAs,
          expectation: 'detect',
          refusedCalls: 0,
          judgments: [j],
          violationWrites: [{ seq: 1, op: 'remember', tool: 'save', refused: false }],
        });
        assert.equal(v.verdict, 'error', `${kind} × ${m} (${judgedAs}): ${v.verdict}: ${v.reason}`);
      }
    });
