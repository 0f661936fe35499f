import type { CellEnv, Driver } from '../drive/types.js';
import { TargetError, type TargetErrorCode } from '../mcp/session.js';
import { captureId, copyHandles, expandOp, handleFor } from '../ops/ops.js';
import type { MemoryOp } from '../scenario/schema.js';
import type { FuzzCase, FuzzStep } from './case.js';
import { messageOf } from '../util/errors.js';

export interface StepOutcome {
  n: number;
  op: string;
  ok: boolean;
  text: string;
  ms: number;
}

/** The server stopped answering: it exited, timed out, or could not start. */
export interface Failure {
  kind: 'crash' | 'hang' | 'protocol';
  message: string;
  step?: number;
  stderr: string;
}

/** What the fuzz driver saw while it drove a case, beyond the calls log the cell keeps. */
export interface FuzzDriveState {
  steps: Map<number, StepOutcome>;
  failure?: Failure;
  protocolErrors: string[];
  toolSchemas: Map<string, Record<string, unknown>>;
  /** update/forget steps that used an id the declaration's capture_id did not find (a guessed key) */
  guessedIds: number[];
  /** the driver itself failed (not the server) */
  harnessError?: string;
}

/** The finding each way a target fails makes. */
export const FAILURE_KIND: Record<TargetErrorCode, Failure['kind']> = {
  TARGET_EXIT: 'crash',
  TARGET_TIMEOUT: 'hang',
  TARGET_PROTOCOL: 'protocol',
};

export function failureOf(e: TargetError, step: number | undefined): Failure {
  const exit =
    e.kind === 'exit' && e.serverExit ? ` (exit code ${e.serverExit.code}, signal ${e.serverExit.signal})` : '';
  return { kind: FAILURE_KIND[e.code], message: e.message + exit, step, stderr: e.stderrTail };
}

/**
 * The fuzz driver: issues a generated case's steps in the one cell flow. Concurrent steps run
 * at once on one session. A crash or hang ends the case but not the cell, so the store is still
 * copied and checked; every call is labelled `fuzz:<n>` with the step that made it.
 */
export function fuzzDriver(c: FuzzCase, state: FuzzDriveState): Driver {
  return {
    kind: 'fuzz',
    phase: 'violation',
    judgedAs: 'violation',
    realModel: false,
    label: `fuzz-${c.fingerprint}`,
    steps: [],
    usesSession: true,
    drive: async (env: CellEnv) => {
      const { decl, sessions } = env;
      const handles = copyHandles(env.handles);
      const guessed = new Set<string>();
      const capturesId = (decl.ops.remember ?? []).some((c) => c.capture_id);
      const session = async () => {
        const s = sessions.current() ?? (await sessions.start());
        if (!state.toolSchemas.size) state.toolSchemas = await s.toolSchemas();
        return s;
      };
      const noiseSeen = new WeakMap<object, number>();
      const collect = () => {
        const s = sessions.current();
        if (!s) return;
        state.protocolErrors.push(...s.protocolErrors.splice(0));
        // the transport skips stdout lines that are not JSON-RPC; MCP allows none there
        for (const line of s.noiseLines.slice(noiseSeen.get(s) ?? 0))
          state.protocolErrors.push(`not JSON-RPC on stdout: ${line}`);
        noiseSeen.set(s, s.noiseLines.length);
        // a server that died between calls is a crash too, even if no call noticed
        if (s.exitInfo && !state.failure)
          state.failure = {
            kind: 'crash',
            message: `server exited on its own (exit code ${s.exitInfo.code}, signal ${s.exitInfo.signal})`,
            stderr: s.stderr(),
          };
      };
      const callOp = async (op: MemoryOp, vars: Record<string, unknown>, n: number) => {
        const texts: string[] = [];
        let ms = 0;
        let id: string | undefined;
        const s = await session();
        for (const call of expandOp(decl, op, vars)) {
          const r = await s.callTool(call.tool, call.args, { op, stage: `fuzz:${n}` });
          texts.push(r.text);
          ms += r.ms;
          if (!r.ok) return { ok: false, text: texts.join('\n'), ms };
          id = captureId(call.capture_id, r.text) ?? id;
        }
        return { ok: true, text: texts.join('\n'), ms, id };
      };
      const run = async (s: FuzzStep): Promise<void> => {
        if (s.op === 'parallel') {
          const results = await Promise.allSettled(s.steps.map(run));
          const bad = results.find((r) => r.status === 'rejected');
          if (bad) throw (bad as PromiseRejectedResult).reason;
          return;
        }
        let r: { ok: boolean; text: string; ms: number; id?: string };
        try {
          switch (s.op) {
            case 'restart': {
              const t = performance.now();
              collect();
              if (state.failure)
                throw new TargetError('exit', state.failure.message, state.failure.stderr, {
                  code: null,
                  signal: null,
                });
              await sessions.stop();
              await session();
              r = { ok: true, text: '', ms: performance.now() - t };
              break;
            }
            case 'remember': {
              const h = handleFor(decl, s);
              r = await callOp('remember', { ...h }, s.n);
              if (r.ok) {
                h.id = r.id ?? h.key;
                handles.set(s.ref, h);
                if (capturesId && r.id === undefined) guessed.add(s.ref);
              }
              break;
            }
            case 'update':
            case 'forget': {
              const h = handles.get(s.ref);
              if (!h) {
                r = { ok: false, text: `skipped: ${s.ref} was never stored`, ms: 0 };
                break;
              }
              if (guessed.has(s.ref)) state.guessedIds.push(s.n);
              r = await callOp(s.op, { memory: { ...h }, content: s.op === 'update' ? s.content : undefined }, s.n);
              if (r.ok && s.op === 'update') h.content = s.content;
              break;
            }
            case 'recall':
              r = await callOp('recall', { query: s.query }, s.n);
              break;
          }
        } catch (e) {
          (e as { step?: number }).step ??= s.n;
          throw e;
        }
        state.steps.set(s.n, { n: s.n, op: s.op, ok: r.ok, text: r.text, ms: r.ms });
      };
      try {
        await session();
        for (const s of c.steps) await run(s);
        collect();
      } catch (e) {
        collect();
        // only the server's own failures are findings; anything else is memeval's (or the declaration's) problem
        if (e instanceof TargetError) state.failure ??= failureOf(e, (e as { step?: number }).step);
        else state.harnessError = messageOf(e);
      }
      return { handles, invalid: [] };
    },
  };
}
