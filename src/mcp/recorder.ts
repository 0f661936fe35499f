import { appendFileSync } from 'node:fs';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { RECORDED_METHODS, type CallRecord, type RecordedMethod } from './calls-log.js';

/** Keys in params._meta the harness uses to label a call; stripped before the server sees them. */
export const META_OP = 'memeval/op';
export const META_STAGE = 'memeval/stage';
/** one memory op's calls share this number, so `called` counts ops, not the tool calls they took */
export const META_OP_CALL = 'memeval/op-call';

interface Pending {
  method: RecordedMethod;
  tool: string;
  args: unknown;
  op: string | null;
  opCall?: number;
  stage: string;
  started: number;
  ts: string;
}

function resultText(method: RecordedMethod, result: unknown): string {
  if (method === 'tools/list')
    return ((result as { tools?: { name?: string }[] })?.tools ?? []).map((t) => String(t?.name)).join(',');
  if (method === 'initialize') {
    const info = (result as { serverInfo?: { name?: string; version?: string } })?.serverInfo;
    return `${info?.name ?? '?'} ${info?.version ?? ''}`.trim();
  }
  const content = (result as { content?: unknown })?.content;
  if (!Array.isArray(content)) return JSON.stringify(result ?? null);
  return content
    .map((c: { type?: string; text?: string }) => (c?.type === 'text' ? (c.text ?? '') : JSON.stringify(c)))
    .join('\n');
}

/**
 * Watches JSON-RPC traffic in both directions and logs every tools/call with its result.
 * The same recorder sits in memeval's in-process client transport and in the stdio proxy
 * that real agents talk through, so both layers produce the same calls log.
 */
export class CallRecorder {
  private pending = new Map<string | number, Pending>();
  private seq = 0;
  readonly records: CallRecord[] = [];
  /** the first failure to append to the log (a full or read-only disk): the log is incomplete from here */
  writeError?: Error;
  private readonly listeners = new Set<(rec: CallRecord, answered: boolean) => void>();

  constructor(
    private readonly logFile: string | undefined,
    private readonly session: number,
    private readonly defaultStage = 'agent',
  ) {}

  /** Client → server. Returns the message to forward (harness labels removed). */
  outgoing(msg: JSONRPCMessage): JSONRPCMessage {
    if (!('method' in msg) || !('id' in msg) || !(RECORDED_METHODS as readonly string[]).includes(msg.method))
      return msg;
    const method = msg.method as RecordedMethod;
    if (method !== 'tools/call') {
      this.pending.set(msg.id, {
        method,
        tool: '',
        args: msg.params ?? {},
        op: null,
        stage: this.defaultStage,
        started: performance.now(),
        ts: new Date().toISOString(),
      });
      return msg;
    }
    const params = (msg.params ?? {}) as { name?: string; arguments?: unknown; _meta?: Record<string, unknown> };
    let op: string | null = null;
    let opCall: number | undefined;
    let stage = this.defaultStage;
    let forward: JSONRPCMessage = msg;
    if (params._meta && (META_OP in params._meta || META_STAGE in params._meta)) {
      op = (params._meta[META_OP] as string | undefined) ?? null;
      stage = (params._meta[META_STAGE] as string | undefined) ?? stage;
      const n = params._meta[META_OP_CALL];
      opCall = typeof n === 'number' ? n : undefined;
      const { [META_OP]: _o, [META_STAGE]: _s, [META_OP_CALL]: _n, ...rest } = params._meta;
      const newParams: Record<string, unknown> = { ...params };
      if (Object.keys(rest).length) newParams._meta = rest;
      else delete newParams._meta;
      forward = { ...msg, params: newParams } as JSONRPCMessage;
    }
    this.pending.set(msg.id, {
      method,
      tool: String(params.name ?? ''),
      args: params.arguments ?? {},
      op,
      ...(opCall !== undefined ? { opCall } : {}),
      stage,
      started: performance.now(),
      ts: new Date().toISOString(),
    });
    return forward;
  }

  /** Server → client. */
  incoming(msg: JSONRPCMessage): void {
    if (!('id' in msg) || 'method' in msg) return;
    const p = this.pending.get(msg.id as string | number);
    if (!p) return;
    this.pending.delete(msg.id as string | number);
    const isRpcError = 'error' in msg;
    const result = isRpcError ? undefined : (msg as { result?: unknown }).result;
    const text = isRpcError
      ? String((msg as { error: { message?: string } }).error?.message ?? 'error')
      : resultText(p.method, result);
    this.finishCall(p, text, isRpcError || Boolean((result as { isError?: boolean })?.isError), false, true);
  }

  /**
   * Calls still waiting when the connection died are logged as errors, so nothing vanishes;
   * `killed`: memeval killed the server on purpose (a kill step), so they were never answered,
   * neither acknowledged nor refused.
   */
  flushPending(reason: string, killed = false): void {
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      this.finishCall(p, reason, true, killed);
    }
  }

  /** Be told of every call once it is logged: answered, or flushed unanswered; returns the way to stop. */
  onRecord(listener: (rec: CallRecord, answered: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private finishCall(p: Pending, text: string, isError: boolean, killed = false, answered = false): void {
    this.write(
      {
        seq: ++this.seq,
        session: this.session,
        stage: p.stage,
        method: p.method,
        op: p.op,
        ...(p.opCall !== undefined ? { op_call: p.opCall } : {}),
        tool: p.tool,
        arguments: p.args,
        result_text: text,
        is_error: isError,
        ms: Math.round((performance.now() - p.started) * 100) / 100,
        ts: p.ts,
        ...(killed ? { killed: true } : {}),
      },
      answered,
    );
  }

  private write(rec: CallRecord, answered: boolean): void {
    this.records.push(rec);
    if (this.logFile && !this.writeError)
      try {
        appendFileSync(this.logFile, JSON.stringify(rec) + '\n');
      } catch (e) {
        this.writeError = e as Error;
      }
    for (const l of this.listeners) l(rec, answered);
  }
}
