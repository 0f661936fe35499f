import type { ParallelCall, StepRecord } from '../core/results.js';
import { TargetError, type TargetSession } from '../mcp/session.js';
import { afterStep, RESULT_CHARS, roundMs, runOp, stepCall, type MemoryHandle } from '../ops/ops.js';
import { lookupRef } from '../ops/refs.js';
import { resolveRefs } from '../scenario/refs.js';
import type { LeafStep, ParallelStep } from '../scenario/schema.js';
import { clip } from '../util/text.js';
import { writeOf } from '../ops/writes.js';
import type { CellEnv } from './types.js';
import { messageOf } from '../util/errors.js';

interface Answered {
  tools: string[];
  ok: boolean;
  ms: number;
  text: string;
  after?: () => void;
}

/** One step on a session; what it changes in the handles is applied by `after` (a parallel step's once all have answered). */
export async function runLeaf(
  env: CellEnv,
  session: TargetSession,
  step: LeafStep,
  handles: Map<string, MemoryHandle>,
  stage: 'setup' | 'step',
): Promise<Answered> {
  if (step.op === 'tool') {
    const args = resolveRefs(step.args, lookupRef(handles)) as Record<string, unknown>;
    const r = await session.callTool(step.tool, args, { stage });
    return { tools: [step.tool], ok: r.ok, ms: r.ms, text: r.text };
  }
  const { op, vars, handle } = stepCall(env.decl, step, handles);
  const r = await runOp(session, env.decl, op, vars, stage);
  return {
    tools: r.tools,
    ok: r.ok,
    ms: r.ms,
    text: r.text,
    after: r.ok ? () => afterStep(step, handle, r.id, handles) : undefined,
  };
}

/**
 * Issue a parallel step's steps all at once, in turn over `sessions` servers (the current one,
 * then extra servers of the same target on the same store, stopped after the step). Every call
 * is recorded on its own, answered or not. A step some of whose calls never returned (the
 * server hung or died) throws after recording them: the cell is `error`, never judged on the
 * calls that did return.
 */
export async function runParallel(
  env: CellEnv,
  step: ParallelStep,
  handles: Map<string, MemoryHandle>,
  stage: 'setup' | 'step',
  current: () => TargetSession | Promise<TargetSession>,
  rec: StepRecord,
  /** a kill step kills the current session while these calls are in flight: its unanswered calls are expected */
  killing?: { session: TargetSession },
): Promise<void> {
  const t0 = performance.now();
  const extras: { no: number; session: TargetSession }[] = [];
  try {
    const pool: { no: number | undefined; session: TargetSession }[] = [{ no: undefined, session: await current() }];
    for (let k = 1; k < step.sessions; k++) {
      const extra = await env.sessions.startExtra();
      extras.push(extra);
      pool.push(extra);
    }
    // what each write stores or forgets, read before any runs (a forget's text is the memory's as it was)
    const written = step.steps.map((s, j) =>
      writeOf(s, { stage, step: rec.index, call: j }, (ref) => handles.get(ref)?.content),
    );
    const settled = await Promise.allSettled(
      step.steps.map((s, j) => runLeaf(env, pool[j % pool.length].session, s, handles, stage)),
    );
    // a call never answered because a kill step killed its server on purpose: expected, not lost
    const killed = (j: number) =>
      settled[j].status === 'rejected' &&
      killing !== undefined &&
      pool[j % pool.length].session === killing.session &&
      killing.session.killedBy !== undefined;
    settled.forEach((r, j) => {
      const w = written[j];
      if (w)
        env.recordWrite?.({
          ...w,
          stage,
          step: rec.index,
          call: j,
          acknowledged: r.status === 'fulfilled' && r.value.ok,
          killed: killed(j),
        });
    });
    const calls: ParallelCall[] = settled.map((r, j) => {
      const s = step.steps[j];
      const base = { index: j, op: s.op, session_slot: j % pool.length, note: s.note };
      if (killed(j))
        return {
          ...base,
          returned: false,
          killed: true,
          tools: [],
          ok: false,
          ms: 0,
          result: clip((r as PromiseRejectedResult).reason?.message ?? 'killed', RESULT_CHARS),
        };
      return r.status === 'fulfilled'
        ? {
            ...base,
            returned: true,
            tools: r.value.tools,
            ok: r.value.ok,
            ms: roundMs(r.value.ms),
            result: clip(r.value.text, RESULT_CHARS),
          }
        : {
            ...base,
            returned: false,
            tools: [],
            ok: false,
            ms: 0,
            result: clip(messageOf(r.reason), RESULT_CHARS),
          };
    });
    for (const r of settled) if (r.status === 'fulfilled') r.value.after?.();
    Object.assign(rec, {
      tools: calls.flatMap((c) => c.tools),
      ok: calls.every((c) => c.returned && c.ok),
      ms: roundMs(performance.now() - t0),
      sessions: step.sessions,
      calls,
      ...(killing ? { killed: true } : {}),
    });
    const lost = settled.flatMap((r, j) =>
      r.status === 'rejected' && !killed(j) ? [{ j, e: r.reason as Error }] : [],
    );
    if (lost.length) {
      const what = `${lost.length} of ${settled.length} call(s) of the parallel step never returned (${lost.map(({ j, e }) => `#${j} ${step.steps[j].op}: ${e.message}`).join('; ')})`;
      const first = lost[0].e;
      // keep the target's failure kind, so the cell's error_code says the target hung or died
      if (first instanceof TargetError)
        throw new TargetError(first.kind, what, first.stderrTail, first.serverExit, { cause: first });
      throw new Error(what, { cause: first });
    }
  } finally {
    for (const extra of extras) await env.sessions.stopExtra(extra);
  }
}
