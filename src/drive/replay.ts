import type { DeterministicPhase } from '../core/results.js';
import {
  afterStep,
  copyHandles,
  RESULT_CHARS,
  roundMs,
  runOp,
  stepCall,
  type MemoryHandle,
  type StepRecord,
} from '../ops/ops.js';
import { lookupRef } from '../ops/refs.js';
import { resolveRefs } from '../scenario/refs.js';
import type { Scenario, Step } from '../scenario/schema.js';
import { ClockError } from '../fixture/wall-clock.js';
import { Interrupted } from '../util/errors.js';
import { clip } from '../util/text.js';
import { runKill } from './kill.js';
import { runParallel } from './parallel.js';
import { writeOf } from '../ops/writes.js';
import type { CellEnv, Driver } from './types.js';

/** The deterministic layer: the scenario's steps of one phase, issued by memeval itself. */
export function replayDriver(scenario: Scenario, phase: DeterministicPhase): Driver {
  const steps: Step[] =
    phase === 'well-behaved' ? scenario.deterministic.well_behaved : (scenario.deterministic.violation?.steps ?? []);
  return {
    kind: 'replay',
    phase,
    judgedAs: phase,
    realModel: false,
    label: phase,
    steps,
    usesSession: true,
    drive: async (env) => ({ handles: await replaySteps(env, steps), invalid: [] }),
  };
}

/**
 * Issue steps through the cell's current session; `restart` stops it and starts the next.
 * Setup steps (`setup.steps`) are recorded with stage "setup": they are not the phase's steps.
 * Returns the memories as the steps left them (env.handles is not changed).
 */
export async function replaySteps(
  env: CellEnv,
  steps: Step[],
  stage: 'setup' | 'step' = 'step',
): Promise<Map<string, MemoryHandle>> {
  const { decl, sessions } = env;
  const handles = copyHandles(env.handles);
  const session = async () => sessions.current() ?? sessions.start();
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    if (env.signal?.aborted) throw new Interrupted('interrupted');
    if (step.op === 'kill') {
      // a kill "during" a write takes that write with it: it is issued while the server is killed
      i += (await runKill(env, steps, i, stage, handles, session)) - 1;
      continue;
    }
    const rec: StepRecord = { index: i, stage, op: step.op, tools: [], ok: true, ms: 0, note: step.note };
    if (step.op === 'restart') {
      const t = performance.now();
      await sessions.stop();
      await sessions.start();
      rec.ms = roundMs(performance.now() - t);
    } else if (step.op === 'advance_clock') {
      if (!env.clock) throw new ClockError('advance_clock: this cell runs without a clock (a lifecycle fault)');
      Object.assign(rec, { result: await env.clock.advance(step.by, { stage, step: i }) });
    } else if (step.op === 'parallel') {
      // recorded even when some call never returned: the record says which
      try {
        await runParallel(env, step, handles, stage, session, rec);
      } finally {
        env.record(rec);
      }
      continue;
    } else if (step.op === 'tool') {
      const args = resolveRefs(step.args, lookupRef(handles)) as Record<string, unknown>;
      const r = await (await session()).callTool(step.tool, args, { stage });
      Object.assign(rec, { tools: [step.tool], ok: r.ok, ms: roundMs(r.ms), result: clip(r.text, RESULT_CHARS) });
    } else {
      const w = writeOf(step, { stage, step: i }, (ref) => handles.get(ref)?.content);
      const { op, vars, handle } = stepCall(decl, step, handles);
      const r = await runOp(await session(), decl, op, vars, stage);
      Object.assign(rec, { tools: r.tools, ok: r.ok, ms: roundMs(r.ms), result: clip(r.text, RESULT_CHARS) });
      if (w) env.recordWrite?.({ ...w, stage, step: i, acknowledged: r.ok, killed: false });
      if (r.ok) afterStep(step, handle, r.id, handles);
    }
    env.record(rec);
  }
  return handles;
}
