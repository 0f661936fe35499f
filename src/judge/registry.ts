import type { Assertion } from '../scenario/schema.js';
import { isBounded, reads } from '../scenario/kinds.js';
import type { JudgeContext } from './context.js';
import { judgment, type Judgment } from './judgment.js';
import { judgeAbsent } from './kinds/absent.js';
import { judgeCalled } from './kinds/called.js';
import { judgeCount } from './kinds/count.js';
import { judgeRecall } from './kinds/recall.js';
import { checkSql, judgeSql } from './kinds/sql.js';
import { checkTranscript, judgeTranscript } from './kinds/transcript.js';
import { checkFile, judgeFile } from './kinds/file.js';
import { judgeLlmKind } from './kinds/llm.js';
import { judgeRankKind } from './kinds/rank.js';
import { cascadeKind, checkCascade, juryKind } from './kinds/compose.js';
import { checkCommand, judgeCommand } from './kinds/command.js';
import { judgePlugin } from './kinds/plugin.js';
import { judgeBudget } from './kinds/budget.js';
import { judgeIntegrity } from './kinds/integrity.js';
import { judgeDurable } from './kinds/durable.js';
import { messageOf } from '../util/errors.js';

type Kind = Assertion['kind'];
type Of<K extends Kind> = Extract<Assertion, { kind: K }>;

/** What the load-time checks know: the target's extra view names, when a target is known. */
export interface CheckEnv {
  extraViews?: string[];
}

export interface JudgeModule<A extends Assertion> {
  /** cheap deterministic judges first (0); those needing a live server (recall) later */
  order: number;
  judge(a: A, ctx: JudgeContext): Judgment | Promise<Judgment>;
  /** problems found before anything runs, as "field: message" */
  check?(a: A, env: CheckEnv): string[];
}

/** One module per assertion kind; a kind added to the schema without a judge does not compile. */
export const JUDGES: { [K in Kind]: JudgeModule<Of<K>> } = {
  count: { order: 0, judge: judgeCount },
  sql: { order: 0, judge: judgeSql, check: (a, env) => checkSql(a, env.extraViews) },
  absent: { order: 0, judge: judgeAbsent },
  called: { order: 0, judge: judgeCalled },
  transcript: { order: 0, judge: judgeTranscript, check: checkTranscript },
  recall: { order: 1, judge: judgeRecall },
  file: { order: 0, judge: judgeFile, check: checkFile },
  rank: { order: 1, judge: judgeRankKind },
  budget: { order: 0, judge: judgeBudget },
  integrity: { order: 0, judge: judgeIntegrity },
  durable: { order: 0, judge: judgeDurable },
  // runs in the bounded judge process (bounded.ts)
  plugin: { order: 0, judge: judgePlugin },
  // after the recall probes: a command may change the store they read
  command: { order: 1.5, judge: judgeCommand, check: checkCommand },
  // compositions run after the plain judges; llm judges last, so cheap checks are reported even if a model is slow
  jury: {
    order: 2,
    judge: juryKind((a, ctx) => judgeOne(a, ctx)),
    check: (a, env) => a.judges.flatMap((m, i) => checkAssertion(m, env).map((p) => `judges[${i}].${p}`)),
  },
  cascade: {
    order: 2,
    judge: cascadeKind((a, ctx) => judgeOne(a, ctx)),
    check: (a, env) => [
      ...checkCascade(a),
      ...a.tiers.flatMap((t, k) =>
        t.judges.flatMap((m, i) => checkAssertion(m, env).map((p) => `tiers[${k}].judges[${i}].${p}`)),
      ),
    ],
  },
  llm: { order: 3, judge: judgeLlmKind },
};

/**
 * Judge one assertion of any kind (jury and cascade members come back through here). A kind
 * whose work the scenario writes goes to the time-limited judge process when the caller has one.
 */
export async function judgeOne(a: Assertion, ctx: JudgeContext): Promise<Judgment> {
  const readsStore = reads(a, 'store');
  // a store that failed its integrity check and does not open: what reads it cannot judge (the integrity judge can)
  if (ctx.evidence.storeUnreadable && readsStore)
    return { ...judgment(a, 'error', null, null, ctx.evidence.storeUnreadable), store_unreadable: true };
  const j = await (ctx.bounded && isBounded(a) ? ctx.bounded(a) : moduleFor(a).judge(a, ctx));
  // a store that failed its integrity check (a line that does not parse reads as a row of NULLs):
  // a judge of it that could not decide met the broken store, which the integrity judge observes
  if (j.outcome !== 'error' || !readsStore || ctx.evidence.storeIntact !== false) return j;
  return {
    ...j,
    detail: `${j.detail} (the store failed its integrity check: see store_integrity)`,
    store_unreadable: true,
  };
}

function moduleFor<K extends Kind>(a: Of<K>): JudgeModule<Of<K>> {
  return JUDGES[a.kind as K] as JudgeModule<Of<K>>;
}

/** Load-time problems of one assertion (compile-checked regexes, SQL against the evidence schema). */
export function checkAssertion(a: Assertion, env: CheckEnv = {}): string[] {
  return moduleFor(a).check?.(a, env) ?? [];
}

/** Judge every assertion; a judge that throws gives that assertion `error`, never a crash. */
export async function runJudges(assertions: Assertion[], ctx: JudgeContext): Promise<Judgment[]> {
  const sorted = assertions
    .map((a, i) => ({ a, i }))
    .sort((x, y) => moduleFor(x.a).order - moduleFor(y.a).order || x.i - y.i);
  const out: Judgment[] = new Array(assertions.length);
  for (const { a, i } of sorted) {
    try {
      out[i] = await judgeOne(a, ctx);
    } catch (e) {
      out[i] = judgment(a, 'error', null, null, messageOf(e));
    }
  }
  return out;
}
