// Faults the provider serves instead of a good answer, so a scenario can see what a memory
// server does when its model fails: which request gets one (FaultPlan), what goes on the wire
// (sendFault), and afterwards, which required fault was never served (unservedFaults).
import type { ServerResponse } from 'node:http';
import { sendJson } from '../wire/util.js';
import { inFaultStage, type FaultRule, type ProviderCall, type ProviderCallKind, type ProviderStage } from './types.js';
import type { Route } from './wire.js';

/**
 * Which request gets which fault. Every rule counts the requests it matches (kind, `contains`
 * and stage), whether or not another rule served them, so "the third embedding request" means
 * the third one the server sent in the rule's stage; the first rule whose window
 * (`skip` < n <= `skip + times`) holds the request serves it. A request of another stage is
 * neither served nor counted: a phase's fault spent on a setup request was never met by the phase.
 */
export class FaultPlan {
  private readonly seen: number[];

  constructor(private readonly rules: readonly FaultRule[]) {
    this.seen = rules.map(() => 0);
  }

  pick(kind: ProviderCallKind, inputs: readonly string[], stage: ProviderStage | null = null): FaultRule | undefined {
    const hay = inputs.join('\n').toLowerCase();
    let chosen: FaultRule | undefined;
    this.rules.forEach((r, i) => {
      if (kind !== 'embeddings' && kind !== 'chat') return;
      if (!inFaultStage(r, stage)) return;
      if (r.on !== 'any' && r.on !== kind) return;
      // an embedding-only fault (a vector's size) cannot be served to a chat request
      if (kind === 'chat' && (r.fault === 'wrong-dimension' || r.fault === 'empty-embedding')) return;
      if (!r.contains.every((c) => hay.includes(c.toLowerCase()))) return;
      const n = ++this.seen[i]!;
      if (!chosen && n > r.skip && (r.times === undefined || n <= r.skip + r.times)) chosen = r;
    });
    return chosen;
  }
}

/** The vector size a wrong-dimension fault serves: its own, else half of what was asked (never what was asked). */
export function wrongDimensions(rule: FaultRule, asked: number): number {
  const d = rule.dimensions ?? Math.max(1, Math.floor(asked / 2));
  return d === asked ? asked + 1 : d;
}

const STATUS_TEXT: Record<number, { type: string; message: string }> = {
  429: { type: 'rate_limit_error', message: 'Rate limit reached (memeval provider fault)' },
  500: {
    type: 'server_error',
    message: 'The server had an error while processing your request (memeval provider fault)',
  },
};

/** An error status in the shape the request's protocol uses, with Retry-After. Returns what was sent. */
export function sendErrorStatus(
  res: ServerResponse,
  protocol: Route['protocol'],
  status: 429 | 500,
  retryAfter: number,
): string {
  const { type, message } = STATUS_TEXT[status]!;
  const body = protocol.startsWith('ollama')
    ? { error: message }
    : protocol === 'anthropic-messages'
      ? { type: 'error', error: { type, message } }
      : { error: { message, type, param: null, code: type } };
  sendJson(res, status, body, { 'retry-after': String(retryAfter) });
  return `HTTP ${status}, Retry-After: ${retryAfter}`;
}

/** A 200 that says it is JSON and is not: the start of a response, cut off. */
export function sendMalformedJson(res: ServerResponse, kind: ProviderCallKind): string {
  const body =
    kind === 'embeddings'
      ? '{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.0123,-0.0456,'
      : '{"id":"chatcmpl-memeval","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"';
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
  return 'HTTP 200 with a body cut off mid-JSON';
}

/**
 * A timeout: send nothing and keep the connection open until the client gives up (or the
 * provider stops). Resolves once the connection closed, with how long that took.
 */
export function holdUntilClosed(res: ServerResponse): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const done = () => resolve(Math.round(performance.now() - t0));
    if (res.destroyed || res.socket?.destroyed) return done();
    res.once('close', done);
  });
}

/**
 * The names of the required faults (of those the cell's provider was given) that no recorded
 * call of the rule's stage was served. A scenario that asked for a fault the target never met
 * in the phase has not tested how the target handles it: the cell must not pass as if it had.
 * A call without a stage (evidence from before the column) counts only for a rule of any stage.
 */
export function unservedFaults(
  rules: readonly FaultRule[],
  calls: readonly (Pick<ProviderCall, 'fault_rule'> & { stage?: ProviderCall['stage'] })[],
): string[] {
  const stageOf = new Map(rules.map((r) => [r.name, r]));
  const served = new Set(
    calls.flatMap((c) => {
      const rule = c.fault_rule ? stageOf.get(c.fault_rule) : undefined;
      return rule && inFaultStage(rule, c.stage ?? null) ? [rule.name] : [];
    }),
  );
  const required = rules.filter((r) => !r.optional);
  const missing = required.filter((r) => !served.has(r.name)).map((r) => r.name);
  // only optional faults: at least one of them must have been served
  if (rules.length && !required.length && !rules.some((r) => served.has(r.name))) return rules.map((r) => r.name);
  return missing;
}
