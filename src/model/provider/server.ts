import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isObj, roughTokens, sendJson, str, type Json } from '../wire/util.js';
import { chooseAnswer, holdMs } from './answers.js';
import { Embedder } from './embeddings.js';
import {
  FaultPlan,
  holdUntilClosed,
  sendErrorStatus,
  sendMalformedJson,
  unservedFaults,
  wrongDimensions,
} from './faults.js';
import type { FaultRule, ProviderCall, ProviderConfig, ProviderStage } from './types.js';
import { chatTexts, embeddingInputs, route, sendChat, sendEmbeddings, sendModels } from './wire.js';
import { messageOf } from '../../util/errors.js';

async function readJson(req: IncomingMessage): Promise<Json> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  if (!raw.trim()) return {};
  const v: unknown = JSON.parse(raw);
  return isObj(v) ? v : {};
}

/**
 * The model provider a memory server is pointed at: deterministic embeddings with the
 * similarities a scenario declares, scripted LLM answers, and the faults a scenario asks for
 * (error statuses, timeouts, bad bodies, bad vectors). It speaks OpenAI, Anthropic and Ollama
 * shapes on one loopback port and records every request, and every fault it served.
 */
export class ProviderServer {
  readonly calls: ProviderCall[] = [];
  /** the cell's stage, stamped on every request as it arrives (a cell sets it as it goes; the kit leaves it null) */
  stage: ProviderStage | null = null;
  private server?: Server;
  private readonly embedder: Embedder;
  private readonly faults: FaultPlan;

  constructor(private readonly config: ProviderConfig) {
    this.embedder = new Embedder(config.similarity);
    this.faults = new FaultPlan(config.faults ?? []);
  }

  /** Listen on a free loopback port; returns the base URL (no trailing slash, no /v1). */
  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(0, '127.0.0.1', () => resolve());
    });
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /**
   * The required fault rules no request of their stage was served so far (see `unservedFaults`):
   * a test that scripted a fault its server never met has not tested how the server handles it.
   */
  unservedFaults(): string[] {
    return unservedFaults(this.config.faults ?? [], this.calls);
  }

  async stop(): Promise<void> {
    const s = this.server;
    if (!s) return;
    this.server = undefined;
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const t0 = performance.now();
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const call: ProviderCall = {
      seq: this.calls.length + 1,
      ts: new Date().toISOString(),
      method,
      path,
      protocol: 'unknown',
      kind: 'unknown',
      model: null,
      inputs: [],
      dimensions: null,
      matched: [],
      answer: null,
      held_ms: 0,
      status: 200,
      ms: 0,
      fault: null,
      fault_rule: null,
      stage: this.stage,
    };
    this.calls.push(call);
    try {
      const r = route(method, path);
      const body = method === 'POST' ? await readJson(req) : {};
      call.model = str(body.model) || null;
      if (!r) {
        call.status = 404;
        return sendJson(res, 404, { error: { message: `memeval provider: no route for ${method} ${path}` } });
      }
      Object.assign(call, { protocol: r.protocol, kind: r.kind });
      if (r.kind === 'models') return sendModels(res, r.protocol);
      if (r.kind === 'embeddings') {
        const inputs = embeddingInputs(body);
        const dims =
          typeof body.dimensions === 'number' && body.dimensions > 0
            ? Math.floor(body.dimensions)
            : this.config.dimensions;
        Object.assign(call, { inputs, dimensions: dims });
        const fault = this.faults.pick('embeddings', inputs, call.stage);
        if (fault && (await this.serveFault(fault, call, res, r.protocol))) return;
        const size = fault?.fault === 'wrong-dimension' ? wrongDimensions(fault, dims) : dims;
        const out = inputs.map((t) => this.embedder.embed(t, size));
        call.matched = out.map((o) => o.matched ?? 'none');
        if (fault)
          call.answer =
            fault.fault === 'empty-embedding' ? 'an empty vector per input' : `${size}-d vectors, ${dims}-d asked`;
        return sendEmbeddings(
          res,
          r.protocol,
          body,
          out.map((o) => (fault?.fault === 'empty-embedding' ? [] : o.vector)),
          roughTokens(Buffer.byteLength(inputs.join(' '))),
        );
      }
      const texts = chatTexts(r.protocol, body);
      call.inputs = texts;
      const fault = this.faults.pick('chat', texts, call.stage);
      if (fault && (await this.serveFault(fault, call, res, r.protocol))) return;
      const { answer, matched, hold } = chooseAnswer(this.config.rules, this.config.default, texts);
      Object.assign(call, { inputs: texts, matched: [matched], answer });
      const wait = holdMs(hold);
      if (wait > 0) {
        await new Promise((r) => setTimeout(r, wait));
        call.held_ms = wait;
      }
      sendChat(res, r.protocol, body, answer, roughTokens(Buffer.byteLength(texts.join('\n'))));
    } catch (e) {
      call.status = 400;
      if (!res.headersSent) sendJson(res, 400, { error: { message: `memeval provider: ${messageOf(e)}` } });
      else res.end();
    } finally {
      if (call.status === 200 && res.statusCode !== 200) call.status = res.statusCode;
      call.ms = Math.round((performance.now() - t0) * 100) / 100;
    }
  }

  /**
   * Serve a fault that replaces the response (an error status, a timeout, a broken body) and
   * note it on the call; false for a fault in the vectors, which the caller serves itself.
   */
  private async serveFault(
    rule: FaultRule,
    call: ProviderCall,
    res: ServerResponse,
    protocol: Parameters<typeof sendErrorStatus>[1],
  ): Promise<boolean> {
    call.fault = rule.fault;
    call.fault_rule = rule.name;
    switch (rule.fault) {
      case 'http-429':
      case 'http-500': {
        const status = rule.fault === 'http-429' ? 429 : 500;
        call.status = status;
        call.answer = sendErrorStatus(res, protocol, status, rule.retryAfter);
        return true;
      }
      case 'malformed-json':
        call.answer = sendMalformedJson(res, call.kind);
        return true;
      case 'timeout': {
        call.status = 0;
        call.answer = 'no answer';
        const ms = await holdUntilClosed(res);
        call.answer = `no answer; the connection closed after ${ms} ms`;
        return true;
      }
      default:
        return false;
    }
  }
}
