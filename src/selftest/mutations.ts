import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { execa } from 'execa';
import type { AgentRunInfo, Judgment } from '../core/results.js';
import { writeAgentUsage } from '../evidence/agent-usage.js';
import { buildEvidence } from '../evidence/build.js';
import { EvidenceError, openEvidence, type Evidence } from '../evidence/open.js';
import { storeRecallProbes } from '../evidence/recall-probes.js';
import { judgeTimeoutMs, runJudgesBounded } from '../judge/bounded.js';
import type { CommandRequest, CommandRun, JudgeContext } from '../judge/context.js';
import type { JudgeModel } from '../judge/llm/client.js';
import { storedRecall } from '../judge/probes.js';
import { traitsOf, withMembers, type InputMutation } from '../scenario/kinds.js';
import type { LoadedScenario } from '../scenario/loader.js';
import type { Assertion } from '../scenario/schema.js';
import { targetSchema } from '../targets/schema.js';

/**
 * Broken inputs of memeval's own judges, made for real: a real evidence DB (an SQLite store with
 * one memory), real programs for `command`, real modules for `plugin`, the scripted judge model
 * for `llm`. One implementation per mutation the kind records name (scenario/kinds.ts), typed by
 * the mutation, so a new one does not compile without it. Used by `memeval selftest` on the
 * scenarios under test and by test/unit/judge/input-mutations.test.ts on every kind.
 */

/** A throwaway cell: an SQLite store with one memory, its evidence, and a fixture folder. */
export interface MutationCell {
  dir: string;
  fixture: { root: string; project: string; vars: Record<string, string> };
}

export function mutationCell(root: string, name: string): MutationCell {
  const dir = join(root, name);
  const data = join(dir, 'fixture', 'data');
  const project = join(dir, 'fixture', 'project');
  mkdirSync(data, { recursive: true });
  mkdirSync(project, { recursive: true });
  const store = new Database(join(data, 's.db'));
  store.exec("CREATE TABLE items (id TEXT, body TEXT); INSERT INTO items VALUES ('1', 'User prefers dark mode');");
  store.close();
  const decl = targetSchema.parse({
    name: 'mutation-cell',
    description: 'the store of an input mutation',
    server: { command: 'true' },
    store: { format: 'sqlite', path: '{{data}}/s.db' },
    views: {
      memories:
        'SELECT id, body AS content, NULL AS category, NULL AS source, NULL AS subject, NULL AS created_at, 0 AS is_deleted FROM store.items',
    },
    ops: { remember: [{ tool: 'save', args: { text: '{{content}}' } }] },
  });
  // memeval's record of the one write, acknowledged: what `durable` checks against the store
  const writes = [
    {
      stage: 'setup',
      step: 0,
      op: 'remember',
      memory: 'pref',
      content: 'User prefers dark mode',
      acknowledged: true,
      killed: false,
    },
  ];
  buildEvidence(decl, join(data, 's.db'), join(dir, 'cell'), [], undefined, undefined, undefined, { writes }).close();
  return { dir: join(dir, 'cell'), fixture: { root: join(dir, 'fixture'), project, vars: {} } };
}

/** A program a command judge runs, for real: node with a script. */
function program(script: string): (r: CommandRequest) => Promise<CommandRun> {
  return async (r) => {
    const t0 = performance.now();
    const p = await execa(process.execPath, ['-e', script], { reject: false, timeout: r.timeoutMs });
    return {
      argv: [r.bin ?? r.run[0] ?? 'program', ...(r.bin ? r.run : r.run.slice(1))],
      exitCode: p.exitCode ?? null,
      signal: p.signal ?? null,
      stdout: String(p.stdout),
      stderr: String(p.stderr),
      timedOut: Boolean(p.timedOut),
      truncated: false,
      ms: performance.now() - t0,
      network: 'none',
    };
  };
}

export interface Mutated {
  a: Assertion;
  ctx: JudgeContext;
}
type Mutate = (a: Assertion, cell: MutationCell, model: JudgeModel | null) => Mutated;

function base(cell: MutationCell, model: JudgeModel | null, evidence: Evidence = openEvidence(cell.dir)): JudgeContext {
  return {
    evidence,
    recall: storedRecall(evidence),
    fixture: cell.fixture,
    judgeModel: model,
    transcript: 'The user prefers dark mode.',
    command: program("process.stdout.write('memories: 1')"),
    memory: () => ({ id: '1', content: 'User prefers dark mode' }),
  };
}

/** Every recall probe the assertion reads, stored as the mutation has it. */
function storeProbes(a: Assertion, cell: MutationCell, o: { is_error: boolean; unreadable: string }): void {
  const queries = withMembers([a]).flatMap((x) => traitsOf(x).probes(x));
  storeRecallProbes(
    cell.dir,
    queries.map((query) => ({
      query,
      result_text: o.is_error ? 'Error: search failed' : 'garbled',
      items: [],
      itemised: false,
      is_error: o.is_error,
      unreadable: o.unreadable,
      ms: 1,
      ts: new Date().toISOString(),
    })),
  );
}

function plugin(cell: MutationCell, model: JudgeModel | null, a: Assertion, src: string): Mutated {
  const file = join(cell.dir, '..', 'plugin.mjs');
  writeFileSync(file, src);
  return { a: { ...a, module: file } as Assertion, ctx: base(cell, model) };
}

const NOT_REPORTED = { input: 0, output: 0, cache_read: 0, cache_write: 0, cost_usd: null };

const MISSING_TABLE = 'SELECT count(*) FROM provider_calls';

/** The composition with every member replaced by a judge that cannot decide (it reads a table the evidence lacks). */
function undecidedMembers(a: Assertion): Assertion {
  const broken = (m: Assertion): Assertion => ({
    kind: 'sql',
    name: m.name,
    phase: m.phase,
    query: MISSING_TABLE,
    op: 'eq',
    value: 0,
  });
  if (a.kind === 'jury') return { ...a, judges: a.judges.map(broken) };
  if (a.kind === 'cascade') return { ...a, tiers: a.tiers.map((t) => ({ ...t, judges: t.judges.map(broken) })) };
  return a;
}

export const MUTATIONS: { [M in InputMutation]: Mutate } = {
  'view-broken': (a, cell, model) => {
    // the store copy the view reads lost its table: opening the evidence refuses it
    const db = new Database(join(cell.dir, 'work', 's.db'));
    db.exec('DROP TABLE items');
    db.close();
    return { a, ctx: base(cell, model) };
  },
  'table-missing': (a, cell, model) => {
    if (a.kind === 'sql') return { a: { ...a, query: MISSING_TABLE }, ctx: base(cell, model) };
    // an evidence written without the table the judge reads (an older memeval, another layer)
    const db = new Database(join(cell.dir, 'evidence.db'));
    db.exec(
      'DROP TABLE IF EXISTS calls; DROP TABLE IF EXISTS agent_usage; DROP TABLE IF EXISTS store_integrity; DROP TABLE IF EXISTS writes',
    );
    db.close();
    return { a, ctx: base(cell, model) };
  },
  'probe-missing': (a, cell, model) => ({ a, ctx: base(cell, model) }),
  'probe-refused': (a, cell, model) => {
    storeProbes(a, cell, { is_error: true, unreadable: 'the target refused the recall' });
    return { a, ctx: base(cell, model) };
  },
  'probe-unreadable': (a, cell, model) => {
    storeProbes(a, cell, { is_error: false, unreadable: 'not the declared JSON: Unexpected token g' });
    return { a, ctx: base(cell, model) };
  },
  'transcript-missing': (a, cell, model) => ({ a, ctx: { ...base(cell, model), transcript: undefined } }),
  'fixture-gone': (a, cell, model) => ({ a, ctx: { ...base(cell, model), fixture: undefined, command: undefined } }),
  'program-usage-exit': (a, cell, model) => ({
    a,
    ctx: {
      ...base(cell, model),
      command: program(
        "process.stderr.write('error: unknown option --json\\nUsage: prog [options]\\n'); process.exit(2)",
      ),
    },
  }),
  'program-silent': (a, cell, model) => ({ a, ctx: { ...base(cell, model), command: program('process.exit(0)') } }),
  'program-stderr-only': (a, cell, model) => ({
    a,
    ctx: { ...base(cell, model), command: program("process.stderr.write('memories: 1\\n')") },
  }),
  'plugin-null': (a, cell, model) =>
    plugin(cell, model, a, "export const judge = () => ({ outcome: 'fail', actual: null, detail: 'saw nothing' });"),
  'plugin-garbage': (a, cell, model) => plugin(cell, model, a, "export const judge = () => 'pass';"),
  'plugin-throws': (a, cell, model) =>
    plugin(cell, model, a, "export const judge = () => { throw new Error('no store'); };"),
  'plugin-hangs': (a, cell, model) => plugin(cell, model, a, 'export const judge = () => new Promise(() => {});'),
  'model-missing': (a, cell) => ({ a, ctx: base(cell, null) }),
  'model-garbage': (a, cell, model) => ({
    a: { ...a, scripted: { verdict: 'pass', quirk: 'invalid-json' } } as Assertion,
    ctx: base(cell, model),
  }),
  'usage-unreported': (a, cell, model) => {
    const db = new Database(join(cell.dir, 'evidence.db'));
    writeAgentUsage(db, {
      agent: 'codex',
      agent_version: '1',
      model: 'scripted',
      scripted: true,
      policy: 'well-behaved',
      repeat: 1,
      memory_off: {},
      usage_estimated: false,
      usage: NOT_REPORTED,
      turns: [
        {
          session: 1,
          prompt: 1,
          exit_code: 0,
          ms: 100,
          final_text: 'done',
          tool_calls: [],
          usage: NOT_REPORTED,
          stdout_file: '',
          stderr_file: '',
          invalid: [],
          finish_reason: 'completed',
        },
      ],
    } as unknown as AgentRunInfo);
    db.close();
    return { a, ctx: base(cell, model) };
  },
  // every member of the composition reads a table the evidence does not have
  'members-undecided': (a, cell, model) => ({ a: undecidedMembers(a), ctx: base(cell, model) }),
  // a store with nothing on disk to check (kept in the process, never created)
  'integrity-unchecked': (a, cell, model) => {
    const db = new Database(join(cell.dir, 'evidence.db'));
    db.exec('DELETE FROM store_integrity');
    db.close();
    return { a, ctx: base(cell, model) };
  },
  // every write refused, or killed before its answer
  'writes-unacknowledged': (a, cell, model) => {
    const db = new Database(join(cell.dir, 'evidence.db'));
    db.exec('UPDATE writes SET acknowledged = 0');
    db.close();
    return { a, ctx: base(cell, model) };
  },
};

/** How one assertion came out under one broken input. */
export interface MutationResult {
  assertion: string;
  kind: string;
  mutation: InputMutation;
  /** the judgment's outcome, or "refused" when the input was refused before any judge ran */
  outcome: Judgment['outcome'] | 'refused';
  detail: string;
  /** a decision (pass or fail) on a broken input: the assertion would pass, or read as caught, on nothing */
  false: boolean;
}

/**
 * Apply every mutation the assertion's kind names (and its members' kinds) to it, judge it for
 * real, and say how each came out. `judgeMs` bounds a judge in the judge process.
 */
export async function mutate(
  a: Assertion,
  root: string,
  model: JudgeModel | null,
  judgeMs: number,
): Promise<MutationResult[]> {
  const out: MutationResult[] = [];
  let n = 0;
  for (const m of traitsOf(a).mutations) {
    const cell = mutationCell(root, `${n++}-${m}`);
    let mutated: Mutated;
    try {
      mutated = MUTATIONS[m](a, cell, model);
    } catch (e) {
      if (!(e instanceof EvidenceError)) throw e;
      out.push({ assertion: a.name, kind: a.kind, mutation: m, outcome: 'refused', detail: e.message, false: false });
      continue;
    }
    try {
      const [j] = await runJudgesBounded([mutated.a], mutated.ctx, cell.dir, judgeMs);
      const decided = j.outcome === 'pass' || j.outcome === 'fail';
      out.push({ assertion: a.name, kind: a.kind, mutation: m, outcome: j.outcome, detail: j.detail, false: decided });
    } finally {
      mutated.ctx.evidence.close();
    }
  }
  return out;
}

/**
 * memeval's own inputs broken under each assertion (and member) of each scenario, in a throwaway
 * folder: how many were applied, and the ones that reached a decision. Once aborted, no further
 * assertion is mutated.
 */
export async function applyMutations(
  scenarios: LoadedScenario[],
  model: JudgeModel | null,
  signal?: AbortSignal,
): Promise<{ applied: number; decided: (MutationResult & { scenario: string })[] }> {
  const root = mkdtempSync(join(tmpdir(), 'memeval-mutations-'));
  try {
    let applied = 0;
    const decided: (MutationResult & { scenario: string })[] = [];
    for (const s of scenarios)
      for (const [i, a] of withMembers(s.scenario.assertions).entries()) {
        if (signal?.aborted) break;
        for (const m of await mutate(a, join(root, `${s.scenario.id}-${i}`), model, judgeTimeoutMs())) {
          applied++;
          if (m.false) decided.push({ ...m, scenario: s.scenario.id });
        }
      }
    return { applied, decided };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
