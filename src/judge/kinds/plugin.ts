import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { OUTCOMES } from '../../core/results.js';
import type { Evidence } from '../../evidence/open.js';
import type { Assertion } from '../../scenario/schema.js';
import type { JudgeContext } from '../context.js';
import { decided, judgment, type Judgment } from '../judgment.js';
import { messageOf } from '../../util/errors.js';

type PluginAssertion = Extract<Assertion, { kind: 'plugin' }>;

/** What a plug-in judge returns: a built-in judgment's own fields (memeval adds name, kind, phase). */
const pluginAnswer = z.looseObject({
  outcome: z.enum(OUTCOMES),
  actual: z.unknown().optional(),
  expected: z.unknown().optional(),
  detail: z.string().optional(),
  score: z.unknown().optional(),
  reasoning: z.string().optional(),
});

/** Set by the judge process: a plug-in runs only there, where a time limit can kill it. */
let inJudgeProcess = false;
export function allowPlugins(): void {
  inJudgeProcess = true;
}

/** The function a plug-in module exports: `judge`, or its default export. */
export function pluginFunction(mod: Record<string, unknown>): ((...args: unknown[]) => unknown) | undefined {
  const f = typeof mod.judge === 'function' ? mod.judge : mod.default;
  return typeof f === 'function' ? (f as (...args: unknown[]) => unknown) : undefined;
}

/** Nothing seen: no value, null, an empty string, array or object. */
function sawNothing(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (typeof v === 'string') return v.trim() === '';
  if (Array.isArray(v)) return v.length === 0;
  return typeof v === 'object' && Object.keys(v).length === 0;
}

const clipJson = (v: unknown) => {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 200 ? `${s.slice(0, 200)}…` : s;
};

function plain(v: unknown): unknown {
  return v === undefined ? undefined : JSON.parse(JSON.stringify(v) ?? 'null');
}

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

/** Keys a row is read by that are not columns (serialising, awaiting, inspecting). */
const NOT_COLUMNS = new Set(['toJSON', 'then', 'inspect']);

/**
 * A frozen row that throws when read by a column it does not have: a plug-in that reads `text`
 * where the view has `content` reads undefined on every row and would decide on nothing.
 */
function strictRows(table: string, rows: Record<string, unknown>[]): Record<string, unknown>[] {
  return rows.map(
    (row) =>
      new Proxy(deepFreeze(row), {
        get(t, k, r) {
          if (typeof k === 'string' && !(k in t) && !NOT_COLUMNS.has(k))
            throw new Error(`${table} has no column "${k}" (its columns: ${Object.keys(t).join(', ')})`);
          return Reflect.get(t, k, r);
        },
      }),
  );
}

function rowsOf(ev: Evidence, table: string): Record<string, unknown>[] {
  return strictRows(table, ev.db.prepare(`SELECT * FROM "${table}"`).all() as Record<string, unknown>[]);
}

function tableOrNull(ev: Evidence, name: string): Record<string, unknown>[] | null {
  const known = ev.db
    .prepare('SELECT 1 FROM sqlite_master WHERE name = ? UNION ALL SELECT 1 FROM sqlite_temp_master WHERE name = ?')
    .get(name, name);
  return known ? rowsOf(ev, name) : null;
}

/**
 * The read-only evidence a plug-in reads: plain frozen rows (and `query` for anything else,
 * read-only SELECTs on the same DB). A table the cell does not have is null, never [] (a
 * plug-in must be able to tell "nothing happened" from "not recorded").
 */
export function pluginEvidence(ctx: JudgeContext): Record<string, unknown> {
  const ev = ctx.evidence;
  return {
    memories: deepFreeze(rowsOf(ev, 'memories')),
    calls: deepFreeze(rowsOf(ev, 'calls')),
    recall_probes: deepFreeze(tableOrNull(ev, 'recall_probes')),
    agent_usage: deepFreeze(tableOrNull(ev, 'agent_usage')),
    provider_calls: deepFreeze(tableOrNull(ev, 'provider_calls')),
    files: ctx.files
      ? deepFreeze(
          ctx.files.flatMap((f) => {
            try {
              return [{ path: f.label, content: readFileSync(f.abs, 'utf8') }];
            } catch {
              return [];
            }
          }),
        )
      : null,
    transcript: ctx.transcript ?? null,
    query: (sql: string, ...params: unknown[]) => {
      const stmt = ev.db.prepare(sql);
      if (!stmt.reader || !stmt.readonly) throw new Error('query: only a read-only SELECT');
      return deepFreeze(stmt.all(...params));
    },
  };
}

/**
 * A judge a scenario brings as a module: called with the read-only evidence and the
 * assertion's options; its answer must be a judgment (outcome pass, fail, abstain or error).
 * A plug-in that throws, or answers anything else, is `error` with why; so is a `pass` that
 * names nothing it saw (`actual` absent): a check that looked at nothing passes nothing.
 */
export async function judgePlugin(a: PluginAssertion, ctx: JudgeContext): Promise<Judgment> {
  if (!inJudgeProcess)
    return judgment(
      a,
      'error',
      null,
      null,
      'a plugin judge runs only in the bounded judge process (not inside a jury or cascade)',
    );
  const mod = (await import(pathToFileURL(a.module).href)) as Record<string, unknown>;
  const fn = pluginFunction(mod);
  if (!fn) return judgment(a, 'error', null, null, `${a.module} exports no function \`judge\` (or default)`);
  let raw: unknown;
  try {
    raw = await fn(pluginEvidence(ctx), deepFreeze(structuredClone(a.options)));
  } catch (e) {
    return judgment(a, 'error', null, null, `${a.module} threw: ${messageOf(e)}`);
  }
  const parsed = pluginAnswer.safeParse(raw);
  if (!parsed.success) {
    const shown = JSON.stringify(raw)?.slice(0, 200) ?? String(raw);
    return judgment(
      a,
      'error',
      null,
      null,
      `${a.module} returned ${shown}, not a judgment: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'value'}: ${i.message}`).join('; ')} (return { outcome: "pass" | "fail" | "abstain" | "error", actual, expected, detail })`,
    );
  }
  const p = parsed.data;
  // what crosses back from the judge process and into the report is plain data
  let actual: unknown, expected: unknown;
  try {
    [actual, expected] = [plain(p.actual), plain(p.expected)];
  } catch (e) {
    return judgment(a, 'error', null, null, `${a.module} returned values that are not plain JSON: ${messageOf(e)}`);
  }
  const outcome = p.outcome;
  // a decision names what it saw: absent, null or empty means it saw nothing, and in a
  // violation phase a fail on nothing would read as the violation caught
  if ((outcome === 'pass' || outcome === 'fail') && sawNothing(actual))
    return judgment(
      a,
      'error',
      actual ?? null,
      expected ?? null,
      `${a.module} answered ${outcome} without saying what it saw (\`actual\` is ${actual === undefined ? 'absent' : JSON.stringify(actual)}): a decision must name what it checked`,
    );
  const j =
    outcome === 'pass' || outcome === 'fail'
      ? decided(a, outcome === 'pass', {
          actual,
          expected: expected ?? null,
          detail: p.detail ?? a.module,
          observed: `${a.module}: ${clipJson(actual)}`,
        })
      : judgment(a, outcome, actual ?? null, expected ?? null, p.detail ?? a.module);
  return {
    ...j,
    ...(p.score !== undefined ? { score: p.score } : {}),
    ...(p.reasoning ? { reasoning: p.reasoning } : {}),
  };
}
