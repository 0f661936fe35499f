import { existsSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { listFiles } from '../../cell/evidence.js';
import { prepareFixture } from '../../cell/prepare.js';
import { holdsMemory } from '../../cell/seed-check.js';
import { CellSessions } from '../../cell/sessions.js';
import { Teardown } from '../../cell/teardown.js';
import { CellTrail } from '../../cell/trail.js';
import type { Fixture } from '../../fixture/fixture.js';
import { guardEnv } from '../../fixture/netguard.js';
import { readCalls } from '../../mcp/calls-log.js';
import { TargetError, type TargetSession } from '../../mcp/session.js';
import { handleFor, runOp, type MemoryHandle } from '../../ops/ops.js';
import { itemiseRecall, type RecallResult } from '../../ops/recall.js';
import { scenarioSchema, type Scenario } from '../../scenario/schema.js';
import type { ResolvedBin } from '../../targets/resolve-bin.js';
import type { TargetDecl } from '../../targets/schema.js';
import { Interrupted, messageOf } from '../../util/errors.js';
import { fillString } from '../../util/template.js';
import { clip } from '../../util/text.js';
import { fail, pass, skip, unchecked, type CheckPoint } from './points.js';
import { emptyFormFix, forgetFix, quote, quoteRows, recallFormatFix, REFUSED_RECALL, updateFix } from './fixes.js';
import { rankVerdict } from './recall-rank.js';
import { toolPoints, type FieldValues } from './tool-points.js';
import { runViews, type StoreViews } from './store-views.js';

/**
 * The memories the check writes and the queries it asks. Two memories, each with a word of its
 * own, so a forget that removes more than its memory, ids that are the same for every write and
 * a recall that ignores its query each show; `unrelated` is asked but never written, so a
 * memories view that shows it reads a log of calls, not the memories.
 */
export const PROBE = {
  memory: 'User keeps the heliotrope build cache on the quartz volume',
  word: 'heliotrope',
  /**
   * the second memory: it must survive the forget of the first, and get an id of its own. No word
   * in common with the others, and a technical one, so no server files it as a duplicate of the
   * first (memorix) or as no knowledge at all (cipher).
   */
  other: 'Begonia staging server redeploys nightly',
  otherWord: 'begonia',
  unrelated: 'zeppelin marmalade',
  /** a third memory for `update` (the first one is forgotten by then) and what it becomes */
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
        { op: 'remember', ref: 'other', content: PROBE.other },
        { op: 'recall', query: PROBE.word },
        { op: 'recall', query: PROBE.otherWord },
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
  /** the memory fields the scenarios write, for arguments with a fixed list of values */
  fieldValues?: FieldValues;
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
      `stopped: ${clip(messageOf(e), 300)}`,
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
    this.points.push(...toolPoints(decl, schemas, this.o.fieldValues));
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

    const a = await this.remember(first, PROBE.memory, true);
    const b = a.accepted ? await this.remember(first, PROBE.other, false) : undefined;
    await this.pause();
    const stored = this.storePoint(a.accepted);
    const views = this.viewPoints(stored);
    const seen = this.memoriesPoints(views, a, b?.accepted ? b : undefined, stored);
    this.idsPoint(a, b, seen.apart);

    const second = await this.session();
    const recalled = await this.recallPoints(second, seen.replaced);
    const forgot = await this.forget(second, a.memory, seen.a, seen.replaced);
    await this.pause();
    const rows = recalled || forgot ? this.memoryRows() : undefined;
    this.logPoint(recalled, rows, views !== undefined);
    if (forgot) this.forgetPoints(forgot, rows, a.memory, b?.memory, seen.b);
    await this.updatePoints();
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

  /** Remember one memory; the remember (and capture_id) points for the first, a refusal for any other. */
  private async remember(session: TargetSession, content: string, first: boolean): Promise<Written> {
    const handle = handleFor(this.decl, { content });
    const r = await runOp(session, this.decl, 'remember', { ...handle }, 'step');
    handle.id = r.id ?? handle.key;
    const written = { memory: handle, accepted: r.ok, captured: r.id };
    if (!first) {
      if (!r.ok)
        this.points.push(
          fail(
            'remember',
            'ops.remember (another memory)',
            `the first memory was accepted, another one (${JSON.stringify(content)}) refused: ${quote(r.text)}`,
            'make ops.remember store any memory it is given, not only the first (a fixed key or name in its arguments makes the second write clash)',
          ),
        );
      return written;
    }
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
      if (!r.ok) this.points.push(unchecked('capture_id', subject, 'not reached: the remember was refused'));
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
    return written;
  }

  /**
   * Two different memories get two different captured ids: an id the same for every write names
   * no memory. Judged only when the view shows the server kept them as two memories (`apart`): a
   * server that filed the second as a duplicate of the first rightly names the first.
   */
  private idsPoint(a: Written, b: Written | undefined, apart: boolean): void {
    const subject = 'ops.remember ids';
    const calls = this.decl.ops.remember ?? [];
    if (!calls.some((c) => c.capture_id !== undefined)) {
      this.points.push(
        skip('ids', subject, "no capture_id: a memory's id is its key, made from its text, so two memories differ"),
      );
      return;
    }
    if (!b?.accepted || a.captured === undefined || b.captured === undefined) {
      this.points.push(
        unchecked(
          'ids',
          subject,
          `not reached: ${!a.accepted ? 'the remember was refused' : !b?.accepted ? 'the second memory was refused' : 'capture_id matched nothing'}`,
        ),
      );
      return;
    }
    if (a.captured !== b.captured) {
      this.points.push(pass('ids', subject, `two memories captured two ids ("${a.captured}", "${b.captured}")`));
      return;
    }
    const constant = constantArgument(calls, a.captured);
    if (!apart && !constant) {
      this.points.push(
        unchecked(
          'ids',
          subject,
          `both memories captured the id "${a.captured}", and the memories view does not show them as two rows: the server may have filed the second as the first (a duplicate), and then that id is right`,
        ),
      );
      return;
    }
    this.points.push(
      fail(
        'ids',
        subject,
        `two different memories both captured the id "${a.captured}"${constant ? `, the constant argument ${constant} of the remember` : ''}: forget and update would name neither`,
        "make capture_id's first group the id the server gives this memory (a value that differs per write), or drop capture_id to use {{key}}",
      ),
    );
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
      this.points.push(unchecked('store', 'store.path', 'not reached: the remember was refused, so no write was made'));
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

  /** The views over the store as it is now; `withCalls: false` leaves the calls table empty. */
  private readViews(withCalls = true): StoreViews {
    const calls = withCalls ? readCalls(join(this.o.dir, 'calls.jsonl')) : [];
    return runViews(this.decl, this.storePath, calls, this.o.dir);
  }

  private viewPoints(stored: boolean): StoreViews | undefined {
    if (!stored) {
      for (const field of ['views.memories', ...Object.keys(this.decl.views.extra).map((n) => `views.extra.${n}`)])
        this.points.push(unchecked('view', field, 'not reached: no store file to run it over'));
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

  /**
   * The memories view returns both written memories as live rows, each with an id of its own,
   * and (for a target with a store) from the store: the calls log left out, they are still there.
   */
  private memoriesPoints(
    read: StoreViews | undefined,
    first: Written,
    second: Written | undefined,
    stored: boolean,
  ): Seen {
    const subject = 'views.memories';
    const view = read?.views.find((v) => v.name === 'memories');
    if (!stored || !view || view.error !== undefined) {
      this.points.push(unchecked('memories', `${subject} rows`, 'not reached: the view does not run'));
      return { a: false, b: false, apart: false };
    }
    const a = first.memory;
    const b = second?.memory;
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
    const seen: Seen = { a: holdsMemory(live, a), b: b !== undefined && holdsMemory(live, b), apart: false };
    const lost = [...(seen.a ? [] : [a]), ...(b && !seen.b ? [b] : [])];
    seen.replaced = second && replacedBy(view.rows!, first, second, seen);
    if (seen.replaced)
      this.points.push(
        unchecked(
          'memories',
          `${subject} rows`,
          `${seen.replaced}: the server keeps one memory per id and its ids collide (a defect of the server, not of the declaration); the points that need the first memory are not checked`,
        ),
      );
    else
      this.points.push(
        !lost.length
          ? pass(
              'memories',
              `${subject} rows`,
              `returns the written ${b ? 'memories' : 'memory'} as live rows (id ${[a, ...(b ? [b] : [])].map((m) => liveIdOf(live, m)).join(', ')})`,
            )
          : fail(
              'memories',
              `${subject} rows`,
              `no live row (is_deleted 0) carries the written memory ${lost.map((m) => JSON.stringify(m.content)).join(' or ')}; rows: ${quoteRows(view.rows!)}`,
              'select the column that holds the text as content, and 0 AS is_deleted for rows the server still serves',
            ),
      );
    if (seen.a && b && seen.b) {
      const ids = [liveIdOf(live, a), liveIdOf(live, b)];
      seen.apart = ids[0] !== ids[1];
      this.points.push(
        ids[0] !== ids[1]
          ? pass('ids', `${subject} ids`, `the two memories are two rows with ids "${ids[0]}" and "${ids[1]}"`)
          : fail(
              'ids',
              `${subject} ids`,
              `both memories are in the row with id "${ids[0]}": judges cannot tell one memory from the other`,
              'select one row per memory (json_each over a file or array that holds several), with the id the server gives that memory',
            ),
      );
    } else this.points.push(unchecked('ids', `${subject} ids`, 'not reached: the view did not return both memories'));
    if (seen.a) this.fromStorePoint(a);
    return seen;
  }

  /** A target with a store is read from its store: a view of the calls log only echoes what was sent. */
  private fromStorePoint(memory: MemoryHandle): void {
    const subject = 'views.memories source';
    if (this.inProcess) {
      this.points.push(
        skip('memories', subject, 'store.format none: the view reads the calls log, where the memories are'),
      );
      return;
    }
    const rows = this.readViews(false).views.find((v) => v.name === 'memories' && v.error === undefined)?.rows;
    if (rows && holdsMemory(liveRows(rows), memory))
      this.points.push(pass('memories', subject, `the memory is read from the ${this.decl.store.format} store`));
    else
      this.points.push(
        fail(
          'memories',
          subject,
          `with the calls log left out the view ${rows ? 'no longer returns the memory' : 'does not run'}: it reads what was sent to the server, not what the ${this.decl.store.format} store holds`,
          `select the memories from the store's tables (store.<table>), not from calls`,
        ),
      );
  }

  /**
   * Recall each memory by its own word, then a query that matches nothing written: the first
   * must find its memory, each must rank its own memory above the other, and the last must read
   * as no results (or nearest matches). True when the recalls were made (the unrelated query was sent).
   */
  private async recallPoints(session: TargetSession, replaced: string | undefined): Promise<boolean> {
    if (!this.decl.ops.recall) {
      this.points.push(skip('recall', 'ops.recall', 'no recall op declared: scenarios with recall are unsupported'));
      return false;
    }
    const own = await this.recallBy(session, PROBE.word, PROBE.memory);
    const other = await this.recallBy(session, PROBE.otherWord, PROBE.other);
    // the server replaced the first memory with the second: the format is read off the second
    const probe = replaced ? { ...other, word: PROBE.otherWord } : { ...own, word: PROBE.word };
    const { found, text, query } = probe;
    const word = probe.word.toLowerCase();
    const asked = `recall "${query}"${this.inProcess ? '' : ' on a new server'}`;
    const unsupported = this.decl.fixture.embedding_model?.recall_unsupported;
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
    else if (!found.items.length && unsupported)
      // the declaration already says its search cannot find things on the stand-in model
      this.points.push(
        unchecked(
          'recall',
          'recall_results',
          `${asked} found nothing, as declared (fixture.embedding_model.recall_unsupported: ${unsupported})`,
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
          `${asked} itemises to ${found.items.length} result(s), the written memory among them${query === probe.word ? '' : ` (by "${probe.word}" alone: none)`}`,
        ),
      );

    const u = await this.recall(session, PROBE.unrelated);
    this.emptyPoint(u);
    const items = (r: { found?: RecallResult }) => (r.found && !r.found.unreadable ? r.found.items : undefined);
    const rank = replaced
      ? ({ status: 'unchecked', detail: `not reached: ${replaced}` } as const)
      : !found?.items.length && unsupported
        ? ({ status: 'unchecked', detail: 'not reached: the recall found nothing, as declared' } as const)
        : rankVerdict(
            { a: PROBE.word, b: PROBE.otherWord },
            { query, items: items(own) },
            { query: other.query, items: items(other) },
            { query: PROBE.unrelated, items: items(u) },
          );
    const subject = 'recall_results ranking';
    if (rank.status === 'pass') this.points.push(pass('recall-rank', subject, rank.detail));
    else if (rank.status === 'unchecked') this.points.push(unchecked('recall-rank', subject, rank.detail));
    else
      this.points.push(
        fail(
          'recall-rank',
          subject,
          rank.detail,
          "map ops.recall to the server's search with {{query}} (a tool that lists every memory is not a recall), and make recall_results split its text into one result per memory",
        ),
      );
    return true;
  }

  /** A recall by a word; a vector search may rank one word below its threshold: then the whole text, which cannot miss. */
  private async recallBy(
    session: TargetSession,
    word: string,
    whole: string,
  ): Promise<{ found?: RecallResult; text: string; query: string }> {
    const r = await this.recall(session, word);
    if (r.found && !r.found.unreadable && !r.found.items.length)
      return { ...(await this.recall(session, whole)), query: whole };
    return { ...r, query: word };
  }

  /** The unrelated recall reads as the declared "no results" form (or, for a server of nearest matches, as results). */
  private emptyPoint(u: { found?: RecallResult; text: string }): void {
    const subject = 'recall_results.empty';
    const none = u.found;
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
        this.decl.recall_results?.empty
          ? unchecked(
              'recall-empty',
              subject,
              `an unrelated recall ("${PROBE.unrelated}") returned ${none.items.length} result(s) (nearest matches), so the declared empty form was not seen`,
            )
          : skip(
              'recall-empty',
              subject,
              `an unrelated recall ("${PROBE.unrelated}") returned ${none.items.length} result(s) (nearest matches), and no empty form is declared`,
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

  /**
   * The memories view is not a log of calls: a query that was sent but never written must not
   * show as a memory. Without a recall no such query is sent; forget and update still see a view
   * that keeps every write.
   */
  private logPoint(recalled: boolean, rows: Record<string, unknown>[] | undefined, viewRan: boolean): void {
    const subject = 'views.memories not a log';
    if (!recalled) {
      const covered = this.decl.ops.forget || this.decl.ops.update;
      this.points.push(
        covered
          ? skip(
              'memories',
              subject,
              'no recall declared to send a text that is never written; the forget and update points see a view that keeps every call',
            )
          : unchecked(
              'memories',
              subject,
              'no recall, forget or update declared: nothing but writes is sent, so a view of the calls cannot be told from the memories',
            ),
      );
      return;
    }
    if (!rows || !viewRan) {
      this.points.push(unchecked('memories', subject, 'not reached: the memories view does not run'));
      return;
    }
    const needle = PROBE.unrelated.toLowerCase();
    const logged = rows.find((r) =>
      String(r.content ?? '')
        .toLowerCase()
        .includes(needle),
    );
    this.points.push(
      logged
        ? fail(
            'memories',
            subject,
            `a row (id ${String(logged.id)}) carries "${PROBE.unrelated}", which was only ever a recall query, never written: the view reads a log of calls, not the memories`,
            `select views.memories from the table or file that holds the memories themselves (a row appears on a write and goes on a forget), not an audit or activity log`,
          )
        : pass('memories', subject, `no row carries the recall query "${PROBE.unrelated}" (never written)`),
    );
  }

  /** Forget the first memory; undefined when there is nothing to forget or it is not declared. */
  private async forget(
    session: TargetSession,
    memory: MemoryHandle,
    seen: boolean,
    replaced: string | undefined,
  ): Promise<{ ok: boolean; text: string } | undefined> {
    if (!this.decl.ops.forget) {
      this.points.push(skip('forget', 'ops.forget', 'no forget op declared: scenarios that forget are unsupported'));
      return undefined;
    }
    // a memory never seen in the view cannot be seen to go
    if (!seen) {
      this.points.push(
        unchecked('forget', 'ops.forget', `not reached: ${replaced ?? 'the memories view never returned the memory'}`),
      );
      return undefined;
    }
    return runOp(session, this.decl, 'forget', { memory: { ...memory } }, 'step');
  }

  /** After the forget: the memory is no longer live, and the other memory still is. */
  private forgetPoints(
    r: { ok: boolean; text: string },
    rows: Record<string, unknown>[] | undefined,
    memory: MemoryHandle,
    other: MemoryHandle | undefined,
    otherSeen: boolean,
  ): void {
    if (!r.ok) {
      this.points.push(fail('forget', 'ops.forget', `refused: ${quote(r.text)}`, forgetFix(this.decl)));
      return;
    }
    if (!rows) {
      this.points.push(unchecked('forget', 'ops.forget', 'not reached: the memories view does not run'));
      return;
    }
    const live = liveRows(rows);
    this.points.push(
      holdsMemory(live, memory)
        ? fail(
            'forget',
            'ops.forget',
            `accepted (${quote(r.text)}) but the memories view still returns the memory as live`,
            forgetFix(this.decl),
          )
        : pass('forget', 'ops.forget', 'the memories view no longer returns the memory as live'),
    );
    const subject = 'ops.forget scope';
    if (!other || !otherSeen)
      this.points.push(
        unchecked('forget', subject, 'not reached: the view never returned a second memory to see survive'),
      );
    else if (holdsMemory(live, other))
      this.points.push(pass('forget', subject, 'the other memory is still live: the forget removed only its own'));
    else
      this.points.push(
        fail(
          'forget',
          subject,
          `forgetting one memory also removed the other (${JSON.stringify(other.content)}): the forget removes more than the memory it names; rows: ${quoteRows(rows)}`,
          `map ops.forget to a tool that deletes one memory by the id its remember gave; a tool that clears a store, scope or entity is not a forget`,
        ),
      );
  }

  /** Remember another memory, update it, then look: a live row carries the new text, none the old. */
  private async updatePoints(): Promise<void> {
    if (!this.decl.ops.update) {
      this.points.push(skip('update', 'ops.update', 'no update op declared: scenarios that update are unsupported'));
      return;
    }
    const session = await this.session();
    const { memory, accepted } = await this.remember(session, PROBE.before, false);
    if (!accepted) {
      this.points.push(unchecked('update', 'ops.update', 'not reached: the memory to update was refused'));
      return;
    }
    const r = await runOp(session, this.decl, 'update', { memory: { ...memory }, content: PROBE.after }, 'step');
    await this.pause();
    if (!r.ok) {
      this.points.push(fail('update', 'ops.update', `refused: ${quote(r.text)}`, updateFix(this.decl)));
      return;
    }
    const rows = this.memoryRows();
    if (!rows) {
      this.points.push(unchecked('update', 'ops.update', 'not reached: the memories view does not run'));
      return;
    }
    const holding = (text: string) =>
      liveRows(rows).filter((row) =>
        String(row.content ?? '')
          .toLowerCase()
          .includes(text.toLowerCase()),
      );
    if (!holding(PROBE.after).length) {
      this.points.push(
        fail(
          'update',
          'ops.update',
          `accepted (${quote(r.text)}) but no live row of the memories view carries the new text ${JSON.stringify(PROBE.after)}; rows: ${quoteRows(rows)}`,
          updateFix(this.decl),
        ),
      );
      return;
    }
    this.points.push(pass('update', 'ops.update', 'the memories view returns the new text as a live row'));
    const old = holding(PROBE.before);
    this.points.push(
      old.length
        ? fail(
            'update',
            'ops.update replaces',
            `the old text ${JSON.stringify(PROBE.before)} is still live beside the new one (row id ${String(old[0].id)}): the update added a memory instead of replacing it`,
            `map ops.update to a tool that replaces the memory's text (or forget the old memory first, as a second call); if the server keeps old versions, views.memories must mark them is_deleted`,
          )
        : pass('update', 'ops.update replaces', 'the old text is no longer live'),
    );
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

/** What the memories view showed of the two memories written first. */
interface Seen {
  a: boolean;
  b: boolean;
  /** two live rows with two ids */
  apart: boolean;
  /** why the first memory is gone: the server filed the second under its id (cipher's ids are the second they were made in) */
  replaced?: string;
}

/**
 * The first memory is not live, the second is, and both carry one id (the view's or the captured
 * one): the server replaced the first with the second. Undefined when that is not what happened.
 */
function replacedBy(rows: Record<string, unknown>[], first: Written, second: Written, seen: Seen): string | undefined {
  if (seen.a || !seen.b) return undefined;
  const live = liveRows(rows);
  const secondId = liveIdOf(live, second.memory);
  const firstRow = rows.find((r) => holdsMemory([r as { id: unknown; content: unknown }], first.memory));
  const id =
    firstRow && String(firstRow.id) === secondId
      ? secondId
      : first.captured !== undefined && first.captured === second.captured
        ? first.captured
        : undefined;
  return id === undefined
    ? undefined
    : `the server gave the second memory (${JSON.stringify(second.memory.content)}) the first one's id "${id}", and the first is no longer live`;
}

/** One memory the check wrote: its handle, whether the server took it, and the id capture_id took from the answer. */
interface Written {
  memory: MemoryHandle;
  accepted: boolean;
  captured?: string;
}

/** The remember argument (path=value) whose constant value is `id`, if any: where a same-for-every-write id came from. */
function constantArgument(calls: NonNullable<TargetDecl['ops']['remember']>, id: string): string | undefined {
  const walk = (v: unknown, path: string): string | undefined => {
    if (typeof v === 'string' || typeof v === 'number') return String(v) === id ? path : undefined;
    if (v && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) {
        const found = walk(x, Array.isArray(v) ? `${path}[${k}]` : `${path}.${k}`);
        if (found) return found;
      }
    return undefined;
  };
  for (const [i, c] of calls.entries()) {
    const at = walk(c.args, `ops.remember[${i}].args`);
    if (at) return `${at}=${JSON.stringify(id)}`;
  }
  return undefined;
}

function liveRows(rows: Record<string, unknown>[]): { id: unknown; content: unknown }[] {
  return rows.filter((r) => !Number(r.is_deleted ?? 0)) as { id: unknown; content: unknown }[];
}

function liveIdOf(rows: { id: unknown; content: unknown }[], memory: MemoryHandle): string {
  const row = rows.find((r) => holdsMemory([r], memory));
  return String(row?.id);
}
