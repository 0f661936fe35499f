import type { CellEnv, DriveOutcome, Driver } from '../drive/types.js';
import { TargetError, type TargetErrorCode, type TargetSession } from '../mcp/session.js';
import { captureId, copyHandles, expandOp, handleFor, type MemoryHandle } from '../ops/ops.js';
import type { MemoryOp } from '../scenario/schema.js';
import { messageOf } from '../util/errors.js';
import type { FuzzCase, FuzzStep } from './case.js';

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
    drive: async (env: CellEnv) => new CaseDrive(env, state).drive(c.steps),
  };
}

interface OpResult {
  ok: boolean;
  text: string;
  ms: number;
  id?: string;
}

type LeafFuzzStep = Exclude<FuzzStep, { op: 'parallel' }>;

/** One case driven through a cell: the handles its steps make, and what it sees into `state`. */
class CaseDrive {
  private readonly handles: Map<string, MemoryHandle>;
  /** refs stored without an id the declaration's capture_id found (their key stands in for it) */
  private readonly guessed = new Set<string>();
  private readonly capturesId: boolean;
  private readonly noiseSeen = new WeakMap<object, number>();

  constructor(
    private readonly env: CellEnv,
    private readonly state: FuzzDriveState,
  ) {
    this.handles = copyHandles(env.handles);
    this.capturesId = (env.decl.ops.remember ?? []).some((c) => c.capture_id);
  }

  async drive(steps: FuzzStep[]): Promise<DriveOutcome> {
    try {
      await this.session();
      for (const s of steps) await this.run(s);
      this.collect();
    } catch (e) {
      this.collect();
      // only the server's own failures are findings; anything else is memeval's (or the declaration's) problem
      if (e instanceof TargetError) this.state.failure ??= failureOf(e, (e as { step?: number }).step);
      else this.state.harnessError = messageOf(e);
    }
    return { handles: this.handles, invalid: [] };
  }

  private async session(): Promise<TargetSession> {
    const s = this.env.sessions.current() ?? (await this.env.sessions.start());
    if (!this.state.toolSchemas.size) this.state.toolSchemas = await s.toolSchemas();
    return s;
  }

  /** What the session showed besides answers: protocol errors, stdout noise, a server that died between calls. */
  private collect(): void {
    const s = this.env.sessions.current();
    if (!s) return;
    this.state.protocolErrors.push(...s.protocolErrors.splice(0));
    // the transport skips stdout lines that are not JSON-RPC; MCP allows none there
    for (const line of s.noiseLines.slice(this.noiseSeen.get(s) ?? 0))
      this.state.protocolErrors.push(`not JSON-RPC on stdout: ${line}`);
    this.noiseSeen.set(s, s.noiseLines.length);
    // a server that died between calls is a crash too, even if no call noticed
    if (s.exitInfo && !this.state.failure)
      this.state.failure = {
        kind: 'crash',
        message: `server exited on its own (exit code ${s.exitInfo.code}, signal ${s.exitInfo.signal})`,
        stderr: s.stderr(),
      };
  }

  private async run(s: FuzzStep): Promise<void> {
    if (s.op === 'parallel') {
      const results = await Promise.allSettled(s.steps.map((p) => this.run(p)));
      const bad = results.find((r) => r.status === 'rejected');
      if (bad) throw (bad as PromiseRejectedResult).reason;
      return;
    }
    let r: OpResult;
    try {
      r = await this.step(s);
    } catch (e) {
      (e as { step?: number }).step ??= s.n;
      throw e;
    }
    this.state.steps.set(s.n, { n: s.n, op: s.op, ok: r.ok, text: r.text, ms: r.ms });
  }

  private step(s: LeafFuzzStep): Promise<OpResult> {
    switch (s.op) {
      case 'restart':
        return this.restart();
      case 'remember':
        return this.remember(s);
      case 'update':
      case 'forget':
        return this.change(s);
      case 'recall':
        return this.callOp('recall', { query: s.query }, s.n);
    }
  }

  private async restart(): Promise<OpResult> {
    const t = performance.now();
    this.collect();
    const failure = this.state.failure;
    if (failure) throw new TargetError('exit', failure.message, failure.stderr, { code: null, signal: null });
    await this.env.sessions.stop();
    await this.session();
    return { ok: true, text: '', ms: performance.now() - t };
  }

  private async remember(s: Extract<FuzzStep, { op: 'remember' }>): Promise<OpResult> {
    const h = handleFor(this.env.decl, s);
    const r = await this.callOp('remember', { ...h }, s.n);
    if (r.ok) {
      h.id = r.id ?? h.key;
      this.handles.set(s.ref, h);
      if (this.capturesId && r.id === undefined) this.guessed.add(s.ref);
    }
    return r;
  }

  private async change(s: Extract<FuzzStep, { op: 'update' | 'forget' }>): Promise<OpResult> {
    const h = this.handles.get(s.ref);
    if (!h) return { ok: false, text: `skipped: ${s.ref} was never stored`, ms: 0 };
    if (this.guessed.has(s.ref)) this.state.guessedIds.push(s.n);
    const content = s.op === 'update' ? s.content : undefined;
    const r = await this.callOp(s.op, { memory: { ...h }, content }, s.n);
    if (r.ok && s.op === 'update') h.content = s.content;
    return r;
  }

  /** One op's calls, each labelled with the step; the first refused call ends the op. */
  private async callOp(op: MemoryOp, vars: Record<string, unknown>, n: number): Promise<OpResult> {
    const texts: string[] = [];
    let ms = 0;
    let id: string | undefined;
    const s = await this.session();
    for (const call of expandOp(this.env.decl, op, vars)) {
      const r = await s.callTool(call.tool, call.args, { op, stage: `fuzz:${n}` });
      texts.push(r.text);
      ms += r.ms;
      if (!r.ok) return { ok: false, text: texts.join('\n'), ms };
      id = captureId(call.capture_id, r.text) ?? id;
    }
    return { ok: true, text: texts.join('\n'), ms, id };
  }
}
