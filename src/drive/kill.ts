import type { KillRecord, StepRecord } from '../core/results.js';
import type { TargetSession } from '../mcp/session.js';
import { RESULT_CHARS, roundMs, type MemoryHandle } from '../ops/ops.js';
import { writeOf } from '../ops/writes.js';
import type { KillStep, Step } from '../scenario/schema.js';
import { writes } from '../scenario/step-ops.js';
import { clip } from '../util/text.js';
import { runLeaf, runParallel } from './parallel.js';
import type { CellEnv } from './types.js';

type Fired = KillRecord['fired'];

/**
 * A `kill` step: the server's whole process group is killed, as a crash or an OOM kill would,
 * without the stdio shutdown, at the point the step names, and the next session starts on the
 * same store.
 * - `after: "ack"`: at once; the step before it has been answered.
 * - `during: { bytes: N }`: the next step (one write) is issued, but only the first N bytes of
 *   its request are written; the kill follows as soon as they are.
 * - `during: "write"`: the next step (a write, or a parallel step of writes) is issued whole;
 *   the kill follows as soon as a file of the store changes, or an answer of the step arrives,
 *   whichever is first (a server that changes no file before it answers is killed at its answer).
 * The in-flight step is recorded after the kill's own record: its calls answered before the
 * server died are acknowledged, the others never answered (`killed`), neither kept nor refused.
 * Returns how many steps it took (2 when it took the in-flight step too).
 */
export async function runKill(
  env: CellEnv,
  steps: Step[],
  i: number,
  stage: 'setup' | 'step',
  handles: Map<string, MemoryHandle>,
  session: () => Promise<TargetSession>,
): Promise<number> {
  const step = steps[i] as KillStep;
  const t0 = performance.now();
  const before = env.sessions.storeBytes();
  const rec: StepRecord = { index: i, stage, op: 'kill', tools: [], ok: true, ms: 0, note: step.note };
  const finish = async (fired: Fired, extra: Partial<KillRecord> = {}): Promise<void> => {
    const ended = await env.sessions.kill(step.signal);
    const kill: KillRecord = {
      signal: step.signal,
      point: step.after ? 'after-ack' : typeof step.during === 'object' ? 'during-bytes' : 'during-write',
      fired,
      ...extra,
      session: ended.session,
      next_session: ended.nextSession,
      took: ended.took,
      exit: ended.exit,
      store_bytes: { before, after: ended.storeBytesAfter },
    };
    Object.assign(rec, { kill, ms: roundMs(performance.now() - t0), result: `${ended.exit} (${fired})` });
  };
  if (step.after) {
    if (!env.sessions.current())
      throw new Error(`kill after "ack" at step ${i}: no server is running (the step before it must be a write)`);
    try {
      await finish('ack');
    } finally {
      env.record(rec);
    }
    return 1;
  }
  const next = steps[i + 1];
  if (!next || !(next.op === 'parallel' ? next.steps.some((x) => writes(x.op)) : writes(next.op)))
    throw new Error(`kill "during" at step ${i}: the next step must be a write (checked when the scenario loads)`);
  const live = await session();
  const partial = typeof step.during === 'object' ? live.armPartial(step.during.bytes) : undefined;
  const watch = partial ? undefined : await env.sessions.armKill(step.signal);
  const answer = partial ? undefined : live.nextAnswer();
  const nextRec: StepRecord = { index: i + 1, stage, op: next.op, tools: [], ok: false, ms: 0, note: next.note };
  const inFlight = issue(env, next, nextRec, stage, handles, live);
  let bytes: KillRecord['bytes'];
  const fired = await Promise.race<Fired>([
    ...(partial ? [partial.then((b) => ((bytes = b), 'bytes-sent' as const))] : []),
    ...(watch ? [watch.changed.then(() => 'store-changed' as const)] : []),
    ...(answer ? [answer] : []),
    inFlight.then(() => 'settled' as const),
  ]);
  watch?.close();
  try {
    await finish(fired, bytes ? { bytes } : {});
  } finally {
    env.record(rec);
    // what the in-flight step did, as it settled (its calls answered before the server died, or never)
    const ended = await inFlight;
    env.record(nextRec);
    if (ended.error) throw ended.error;
  }
  return 2;
}

/**
 * Issue the step the kill lands during and settle it once the server is gone: never throws;
 * says what failed that was not the kill (a call that failed before memeval killed the server).
 */
async function issue(
  env: CellEnv,
  step: Step,
  rec: StepRecord,
  stage: 'setup' | 'step',
  handles: Map<string, MemoryHandle>,
  live: TargetSession,
): Promise<{ error?: Error }> {
  const t0 = performance.now();
  if (step.op === 'parallel') {
    try {
      await runParallel(env, step, handles, stage, () => live, rec, { session: live });
      return {};
    } catch (e) {
      return { error: e as Error };
    }
  }
  const leaf = step as Parameters<typeof runLeaf>[2];
  const w = writeOf(leaf, { stage, step: rec.index }, (ref) => handles.get(ref)?.content);
  try {
    const r = await runLeaf(env, live, leaf, handles, stage);
    Object.assign(rec, { tools: r.tools, ok: r.ok, ms: roundMs(r.ms), result: clip(r.text, RESULT_CHARS) });
    if (w) env.recordWrite?.({ ...w, stage, step: rec.index, acknowledged: r.ok, killed: false });
    r.after?.();
    return {};
  } catch (e) {
    // the call failed after memeval killed its server: never answered; before: a failure of its own
    const killed = live.killedBy !== undefined;
    Object.assign(rec, {
      ok: false,
      ms: roundMs(performance.now() - t0),
      result: clip((e as Error).message, RESULT_CHARS),
      ...(killed ? { killed: true } : {}),
    });
    if (w) env.recordWrite?.({ ...w, stage, step: rec.index, acknowledged: false, killed });
    return killed ? {} : { error: e as Error };
  }
}
