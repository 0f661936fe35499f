import { existsSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { listFiles } from '../cell/evidence.js';
import { prepareFixture } from '../cell/prepare.js';
import { holdsMemory } from '../cell/seed-check.js';
import { CellSessions } from '../cell/sessions.js';
import { Teardown } from '../cell/teardown.js';
import { CellTrail } from '../cell/trail.js';
import type { Fixture } from '../fixture/fixture.js';
import { guardEnv } from '../fixture/netguard.js';
import { readCalls } from '../mcp/calls-log.js';
import { TargetError, type TargetSession } from '../mcp/session.js';
import { handleFor, runOp, type MemoryHandle } from '../ops/ops.js';
import { itemiseRecall, type RecallResult } from '../ops/recall.js';
import { scenarioSchema, type Scenario } from '../scenario/schema.js';
import type { ResolvedBin } from '../targets/resolve-bin.js';
import type { TargetDecl } from '../targets/schema.js';
import { Interrupted } from '../util/errors.js';
import { fillString } from '../util/template.js';
import { clip } from '../util/text.js';
import { fail, pass, skip, type CheckPoint } from './check-points.js';
import {
  emptyFormFix,
  forgetFix,
  quote,
  quoteRows,
  recallFormatFix,
  REFUSED_RECALL,
  updateFix,
} from './check-fixes.js';
import { toolPoints } from './tool-points.js';
import { runViews, type StoreViews } from './store-views.js';

/** The memory the check writes, a word of it to recall it by, and a query that matches nothing. */
export const PROBE = {
  memory: 'User keeps the heliotrope build cache on the quartz volume',
  word: 'heliotrope',
  unrelated: 'zeppelin marmalade',
  /** a second memory for `update` (the first one is forgotten by then) and what it becomes */
  before: 'User schedules the tangerine release train every Thursday',
  after: 'User schedules the tangerine release train every Monday',
} as const;

/** The memories view must yield these (the judges read them). */
const MEMORY_COLUMNS = ['id', 'content', 'category', 'source', 'subject', 'created_at', 'is_deleted'];

/**
 * The check as a scenario, so the fixture is made as a cell's is: the seeded embedding model and
 * the model provider know every text the check sends.
 */
function checkScenario(): Scenario {
  return scenarioSchema.parse({
    schema_version: 1,
    id: 'target-check',
    title: 'memeval targets check',
    description: 'the declared ops, once, against the real server',
    deterministic: {
      well_behaved: [
        { op: 'remember', ref: 'probe', content: PROBE.memory },
        { op: 'recall', query: PROBE.word },
        { op: 'recall', query: PROBE.unrelated },
        { op: 'forget', memory: '$ref:probe' },
        { op: 'remember', ref: 'changed', content: PROBE.before },
        { op: 'update', memory: '$ref:changed', content: PROBE.after },
      ],
      violation: null,
    },
    assertions: [{ kind: 'count', name: 'probe', phase: 'both', contains: PROBE.word, op: 'gte', value: 0 }],
  });
}

export interface LiveCheckOptions {
  decl: TargetDecl;
  bin: ResolvedBin;
  /** where calls, stderr and the provider's log are kept */
  dir: string;
  keep: boolean;
  signal?: AbortSignal;
}

/**
 * Run the declared ops once against the real server, in a fixture made as a cell's is, and say
 * point by point what held. Sessions: (1) tools/list and remember; (2) on a new server, recall,
 * then forget; (3) remember another memory and update it. The store and views are read after
 * each server stops (a store-less target keeps one server: its views read the calls log).
 */
export async function liveCheck(o: LiveCheckOptions): Promise<CheckPoint[]> {
  const points: CheckPoint[] = [];
  const teardown = new Teardown();
  const trail = new CellTrail();
  try {
    await new LiveCheck(o, points, teardown, trail).run();
  } catch (e) {
    if (e instanceof Interrupted || o.signal?.aborted) throw new Interrupted('interrupted');
    points.push(stoppedPoint(e));
  } finally {
    await teardown.run();
  }
  for (const f of teardown.failures) points.push(fail('server', 'teardown', f, 'see the server log in the check dir'));
  return points;
}

/**
 * The point for what stopped the check. A server that died names its exit and stderr; anything
 * else (a template filter that refuses the value it gets, an op that cannot be expanded) names the
 * declaration's problem: a failed point either way, never a crash or a pass.
 */
function stoppedPoint(e: unknown): CheckPoint {
  if (!(e instanceof TargetError))
    return fail(
      'server',
      'check',
      `stopped: ${clip((e as Error).message, 300)}`,
      'fix the declaration field the message names; the points after this one were not reached',
    );
  const tail = e.stderrTail.trim().split('\n').slice(-3).join(' | ');
  return fail(
    'server',
    'server',
    `${e.message}${tail ? `; stderr: ${clip(tail, 300)}` : ''}`,
    'check server (command, args, env, startup_timeout_ms) and the package; the points after this one were not reached',
  );
}

class LiveCheck {
  private sessions!: CellSessions;
  private fixture!: Fixture;
  private storePath = '';
  private readonly inProcess: boolean;

  constructor(
    private readonly o: LiveCheckOptions,
    private readonly points: CheckPoint[],
    private readonly teardown: Teardown,
    private readonly trail: CellTrail,
  ) {
    this.inProcess = o.decl.store.format === 'none';
  }

  private get decl(): TargetDecl {
    return this.o.decl;
  }

  async run(): Promise<void> {
    const { decl, bin, dir } = this.o;
    const callsLog = join(dir, 'calls.jsonl');
    const prepared = await prepareFixture(
      {
        scenario: checkScenario(),
        decl,
        bin,
        cellDir: dir,
        keep: this.o.keep,
        label: `check-${decl.name}`,
        judgedAs: 'well-behaved',
      },
      this.teardown,
      this.trail,
    );
    this.fixture = prepared.fixture;
    this.storePath = prepared.storePath;
    const sessions = (this.sessions = new CellSessions({
      ...prepared,
      decl,
      bin,
      cellDir: dir,
      callsLog,
      serverEnv: guardEnv(join(dir, 'network.jsonl')),
      signal: this.o.signal,
      trail: this.trail,
    }));
    this.teardown.add('stop target', () => sessions.stop());

    const first = await sessions.start();
    const schemas = await first.toolSchemas();
    this.points.push(
      pass('server', 'server', `started in ${Math.round(first.startMs)} ms and lists ${schemas.size} tool(s)`),
    );
    this.points.push(...toolPoints(decl, schemas));
    if (!decl.ops.remember?.length) {
      this.points.push(
        fail(
          'remember',
          'ops.remember',
          'not declared: nothing can be written, so nothing else can be checked',
          'declare ops.remember: the tool call(s) that store one memory',
        ),
      );
      return;
    }

    const { memory, accepted } = await this.remember(first, PROBE.memory, true);
    await this.pause();
    const stored = this.storePoint(accepted);
    const views = this.viewPoints(stored);
    const seen = this.memoriesPoint(views, memory, stored);

    const second = await this.session();
    await this.recallPoints(second);
    await this.forgetPoint(second, memory, seen);
    await this.updatePoint();
    await this.sessions.stop();
    this.shutdownPoints();
  }

  /** A store-less target keeps its one server; any other is stopped so its store is whole on disk. */
  private async pause(): Promise<void> {
    if (!this.inProcess) await this.sessions.stop();
  }

  private async session(): Promise<TargetSession> {
    return this.sessions.current() ?? this.sessions.start();
  }

  /** Remember one memory; the remember (and capture_id) points only for the first. */
  private async remember(
    session: TargetSession,
    content: string,
    report: boolean,
  ): Promise<{ memory: MemoryHandle; accepted: boolean }> {
    const handle = handleFor(this.decl, { content });
    const r = await runOp(session, this.decl, 'remember', { ...handle }, 'step');
    handle.id = r.id ?? handle.key;
    if (!report) return { memory: handle, accepted: r.ok };
    this.points.push(
      r.ok
        ? pass('remember', 'ops.remember', `accepted: ${quote(r.text)}`)
        : fail(
            'remember',
            'ops.remember',
            `refused: ${quote(r.text)}`,
            'make ops.remember call the tool with the arguments it needs',
          ),
    );
    (this.decl.ops.remember ?? []).forEach((call, i) => {
      if (call.capture_id === undefined) return;
      const subject = `ops.remember[${i}].capture_id`;
      if (!r.ok) this.points.push(skip('capture_id', subject, 'not reached: the remember was refused'));
      else if (r.id === undefined)
        this.points.push(
          fail(
            'capture_id',
            subject,
            `/${call.capture_id}/ matches nothing in the result ${quote(r.text)}`,
            'write a regex whose first group is the id in that text (or drop capture_id to use {{key}})',
          ),
        );
      else this.points.push(pass('capture_id', subject, `captured id "${r.id}"`));
    });
    return { memory: handle, accepted: r.ok };
  }

  /** The store file exists where declared once a remember was accepted; false when it does not. */
  private storePoint(accepted: boolean): boolean {
    if (this.decl.store.format === 'none') {
      this.points.push(skip('store', 'store.path', 'store.format none: the memories live in the server process'));
      return true;
    }
    if (existsSync(this.storePath)) {
      this.points.push(pass('store', 'store.path', `${this.inFixture(this.storePath)} exists after the write`));
      return true;
    }
    if (!accepted) {
      this.points.push(skip('store', 'store.path', 'not reached: the remember was refused, so no write was made'));
      return false;
    }
    const model = this.decl.fixture.embedding_model;
    const modelDir = model ? resolve(fillString(model.dir, this.fixture.vars)) : undefined;
    const found = listFiles(this.fixture.root, 2000)
      // not the seeded embedding model, not git's own files
      .filter((f) => !(modelDir && f.startsWith(modelDir + sep)) && !f.includes(`${sep}.git${sep}`))
      .slice(0, 20)
      .map((f) => this.inFixture(f));
    this.points.push(
      fail(
        'store',
        'store.path',
        `${this.inFixture(this.storePath)} does not exist after an accepted write`,
        found.length
          ? `point store.path at the file the server wrote; files in the fixture: ${found.join(', ')}`
          : 'the server wrote no file in the fixture: point it at {{data}} with server.env or server.args, or declare store.format none',
      ),
    );
    return false;
  }

  /** A path under the fixture, as the declaration would write it ({{data}}/x.db). */
  private inFixture(file: string): string {
    for (const v of ['data', 'home', 'project', 'tmp'] as const) {
      const rel = relative(this.fixture[v], file);
      if (!rel.startsWith('..')) return `{{${v}}}/${rel}`;
    }
    return `{{fixture}}/${relative(this.fixture.root, file)}`;
  }

  private readViews(): StoreViews {
    return runViews(this.decl, this.storePath, readCalls(join(this.o.dir, 'calls.jsonl')), this.o.dir);
  }

  private viewPoints(stored: boolean): StoreViews | undefined {
    if (!stored) {
      for (const field of ['views.memories', ...Object.keys(this.decl.views.extra).map((n) => `views.extra.${n}`)])
        this.points.push(skip('view', field, 'not reached: no store file to run it over'));
      return undefined;
    }
    const read = this.readViews();
    for (const v of read.views) {
      if (v.error === undefined) {
        this.points.push(pass('view', v.field, `runs over the store: ${v.rows!.length} row(s)`));
        continue;
      }
      const tables = read.tables
        .filter((t) => !t.name.startsWith('sqlite_'))
        .map((t) => `store.${t.name}(${t.columns.join(', ')})`)
        .join('; ');
      this.points.push(
        fail(
          'view',
          v.field,
          `does not run over the store: ${v.error}`,
          this.decl.store.format === 'none'
            ? 'a store-less view reads the calls table (seq, session, stage, method, op, tool, arguments, result_text, is_error, ms, ts)'
            : `name tables and columns the store has: ${tables || '(the store holds no tables)'}`,
        ),
      );
    }
    return read;
  }

  /** Whether the memories view returned the written memory as live. */
  private memoriesPoint(read: StoreViews | undefined, memory: MemoryHandle, stored: boolean): boolean {
    const subject = 'views.memories';
    const view = read?.views.find((v) => v.name === 'memories');
    if (!stored || !view || view.error !== undefined) {
      this.points.push(skip('memories', `${subject} rows`, 'not reached: the view does not run'));
      return false;
    }
    const missing = MEMORY_COLUMNS.filter((c) => !view.columns!.includes(c));
    if (missing.length)
      this.points.push(
        fail(
          'memories',
          `${subject} columns`,
          `lacks ${missing.join(', ')} (it yields ${view.columns!.join(', ')})`,
          `yield ${MEMORY_COLUMNS.join(', ')} (NULL AS <column> where the store has nothing for it)`,
        ),
      );
    else this.points.push(pass('memories', `${subject} columns`, `yields ${MEMORY_COLUMNS.join(', ')}`));
    const live = liveRows(view.rows!);
    const seen = holdsMemory(live, memory);
    this.points.push(
      seen
        ? pass('memories', `${subject} rows`, `returns the written memory as a live row (id ${liveIdOf(live, memory)})`)
        : fail(
            'memories',
            `${subject} rows`,
            `no live row (is_deleted 0) carries the written memory ${JSON.stringify(memory.content)}; rows: ${quoteRows(view.rows!)}`,
            'select the column that holds the text as content, and 0 AS is_deleted for rows the server still serves',
          ),
    );
    return seen;
  }

  private async recallPoints(session: TargetSession): Promise<void> {
    if (!this.decl.ops.recall) {
      this.points.push(skip('recall', 'ops.recall', 'no recall op declared: scenarios with recall are unsupported'));
      return;
    }
    // a vector search may rank one word below its threshold: then the whole text, which cannot miss
    let query: string = PROBE.word;
    let r = await this.recall(session, query);
    if (r.found && !r.found.unreadable && !r.found.items.length) {
      query = PROBE.memory;
      r = await this.recall(session, query);
    }
    const { found, text } = r;
    const word = PROBE.word.toLowerCase();
    const asked = `recall "${query}"${this.inProcess ? '' : ' on a new server'}`;
    if (!found) this.points.push(fail('recall', 'ops.recall', `${asked} was refused: ${quote(text)}`, REFUSED_RECALL));
    else if (found.unreadable)
      this.points.push(
        fail(
          'recall',
          'recall_results',
          `${asked} cannot be read as results: ${found.unreadable}; it returned ${quote(text)}`,
          recallFormatFix(this.decl, text),
        ),
      );
    else if (!found.items.length && this.decl.fixture.embedding_model?.recall_unsupported)
      // the declaration already says its search cannot find things on the stand-in model
      this.points.push(
        skip(
          'recall',
          'recall_results',
          `${asked} found nothing, as declared (fixture.embedding_model.recall_unsupported: ${this.decl.fixture.embedding_model.recall_unsupported})`,
        ),
      );
    else if (!found.items.some((i) => i.toLowerCase().includes(word)))
      this.points.push(
        fail(
          'recall',
          'recall_results',
          `${asked} itemises to ${found.items.length} result(s), none carrying the written memory; it returned ${quote(text)}`,
          found.items.length ? recallFormatFix(this.decl, text) : 'check ops.recall and the memory written before it',
        ),
      );
    else
      this.points.push(
        pass(
          'recall',
          'recall_results',
          `${asked} itemises to ${found.items.length} result(s), the written memory among them${query === PROBE.word ? '' : ` (by "${PROBE.word}" alone: none)`}`,
        ),
      );

    const u = await runOp(session, this.decl, 'recall', { query: PROBE.unrelated }, 'step');
    const none = u.ok ? itemiseRecall(this.decl, u.text, PROBE.unrelated) : undefined;
    const subject = 'recall_results.empty';
    if (!none)
      this.points.push(
        fail('recall-empty', subject, `recall "${PROBE.unrelated}" was refused: ${quote(u.text)}`, REFUSED_RECALL),
      );
    else if (none.unreadable)
      this.points.push(
        fail(
          'recall-empty',
          subject,
          `an unrelated recall ("${PROBE.unrelated}") cannot be read as "no results": ${none.unreadable}; it returned ${quote(u.text)}`,
          emptyFormFix(this.decl, u.text, PROBE.unrelated),
        ),
      );
    else if (none.items.length)
      this.points.push(
        skip(
          'recall-empty',
          subject,
          `an unrelated recall ("${PROBE.unrelated}") returned ${none.items.length} result(s) (nearest matches), so the empty form was not seen`,
        ),
      );
    else
      this.points.push(
        pass('recall-empty', subject, `an unrelated recall ("${PROBE.unrelated}") itemises to no results`),
      );
  }

  private async recall(session: TargetSession, query: string): Promise<{ found?: RecallResult; text: string }> {
    const r = await runOp(session, this.decl, 'recall', { query }, 'step');
    return { found: r.ok ? itemiseRecall(this.decl, r.text, query) : undefined, text: r.text };
  }

  /** Forget the memory the view returned above, then look: no live row may still carry it. */
  private async forgetPoint(session: TargetSession, memory: MemoryHandle, seen: boolean): Promise<void> {
    if (!this.decl.ops.forget) {
      this.points.push(skip('forget', 'ops.forget', 'no forget op declared: scenarios that forget are unsupported'));
      return;
    }
    // a memory never seen in the view cannot be seen to go
    if (!seen) {
      this.points.push(skip('forget', 'ops.forget', 'not reached: the memories view never returned the memory'));
      return;
    }
    const r = await runOp(session, this.decl, 'forget', { memory: { ...memory } }, 'step');
    await this.pause();
    if (!r.ok) {
      this.points.push(fail('forget', 'ops.forget', `refused: ${quote(r.text)}`, forgetFix(this.decl)));
      return;
    }
    const rows = this.memoryRows();
    if (!rows) this.points.push(skip('forget', 'ops.forget', 'not reached: the memories view does not run'));
    else if (holdsMemory(liveRows(rows), memory))
      this.points.push(
        fail(
          'forget',
          'ops.forget',
          `accepted (${quote(r.text)}) but the memories view still returns the memory as live`,
          forgetFix(this.decl),
        ),
      );
    else this.points.push(pass('forget', 'ops.forget', 'the memories view no longer returns the memory as live'));
  }

  /** Remember another memory, update it, then look: a live row must carry the new text. */
  private async updatePoint(): Promise<void> {
    if (!this.decl.ops.update) {
      this.points.push(skip('update', 'ops.update', 'no update op declared: scenarios that update are unsupported'));
      return;
    }
    const session = await this.session();
    const { memory } = await this.remember(session, PROBE.before, false);
    const r = await runOp(session, this.decl, 'update', { memory: { ...memory }, content: PROBE.after }, 'step');
    await this.pause();
    if (!r.ok) {
      this.points.push(fail('update', 'ops.update', `refused: ${quote(r.text)}`, updateFix(this.decl)));
      return;
    }
    const rows = this.memoryRows();
    const needle = PROBE.after.toLowerCase();
    if (!rows) this.points.push(skip('update', 'ops.update', 'not reached: the memories view does not run'));
    else if (
      !liveRows(rows).some((row) =>
        String(row.content ?? '')
          .toLowerCase()
          .includes(needle),
      )
    )
      this.points.push(
        fail(
          'update',
          'ops.update',
          `accepted (${quote(r.text)}) but no live row of the memories view carries the new text ${JSON.stringify(PROBE.after)}; rows: ${quoteRows(rows)}`,
          updateFix(this.decl),
        ),
      );
    else this.points.push(pass('update', 'ops.update', 'the memories view returns the new text as a live row'));
  }

  private memoryRows(): Record<string, unknown>[] | undefined {
    return this.readViews().views.find((v) => v.name === 'memories' && v.error === undefined)?.rows;
  }

  /** A server that crashed or emptied its store when stopped. */
  private shutdownPoints(): void {
    for (const problem of this.trail.shutdown)
      this.points.push(fail('server', 'server stop', problem, 'see the server stderr in the check dir'));
  }
}

function liveRows(rows: Record<string, unknown>[]): { id: unknown; content: unknown }[] {
  return rows.filter((r) => !Number(r.is_deleted ?? 0)) as { id: unknown; content: unknown }[];
}

function liveIdOf(rows: { id: unknown; content: unknown }[], memory: MemoryHandle): string {
  const row = rows.find((r) => holdsMemory([r], memory));
  return String(row?.id);
}
