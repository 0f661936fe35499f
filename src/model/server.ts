import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { decide, offeredName, type Script } from './policy.js';
import type { Decision, WireAdapter } from './wire/contract.js';
import { roughTokens } from './wire/util.js';
import { anthropicMessages } from './wire/anthropic-messages.js';
import { gemini } from './wire/gemini.js';
import { openaiChat } from './wire/openai-chat.js';
import { openaiResponses } from './wire/openai-responses.js';
import { scriptedJudgeEnvelope } from './judge-envelope.js';
import { scriptedJudgeAnswer } from './judge-answer.js';
import { messageOf } from '../util/errors.js';

export const ALL_ADAPTERS: WireAdapter[] = [anthropicMessages, openaiResponses, openaiChat, gemini];

export interface ModelRequestLog {
  ts: string;
  method: string;
  path: string;
  protocol: string | null;
  decision: 'tool_call' | 'text' | 'side' | 'unknown' | 'judge';
  tool?: string;
  input_tokens: number;
  output_tokens: number;
  note?: string;
}

function decode(buf: Buffer, encoding: string | undefined): Buffer {
  switch ((encoding ?? '').toLowerCase()) {
    case 'gzip':
      return gunzipSync(buf);
    case 'deflate':
      return inflateSync(buf);
    case 'br':
      return brotliDecompressSync(buf);
    default:
      return buf;
  }
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return decode(Buffer.concat(chunks), req.headers['content-encoding'] as string | undefined);
}

/**
 * memeval's scripted model: a loopback HTTP server speaking the agents' wire protocols. It
 * stands in for the model only. Each request is answered from the conversation it carries
 * and the current session's script (see policy.ts); nothing else is remembered between requests.
 */
export class ScriptedModelServer {
  script: Script | null = null;
  readonly log: ModelRequestLog[] = [];
  /** tool names the script needed that the agent did not offer */
  readonly missingTools = new Set<string>();
  /** sees each request's decoded body (tests read what the agent sent the model) */
  onRequest?: (path: string, body: string) => void;
  private server?: Server;

  constructor(private readonly adapters: WireAdapter[] = ALL_ADAPTERS) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((e) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `scripted model: ${messageOf(e)}` } }));
      });
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(0, '127.0.0.1', () => resolve());
    });
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server!.close(() => r()));
  }

  /** Model requests (not side requests) logged from index `since` of the log on. */
  modelRequests(since = 0): ModelRequestLog[] {
    return this.log.slice(since).filter((l) => l.decision === 'tool_call' || l.decision === 'text');
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const raw = await readBody(req);
    this.onRequest?.(path, raw.toString('utf8'));
    let body: unknown = undefined;
    if (raw.length) {
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        body = undefined;
      }
    }
    const entry: ModelRequestLog = {
      ts: new Date().toISOString(),
      method,
      path,
      protocol: null,
      decision: 'unknown',
      input_tokens: 0,
      output_tokens: 0,
    };
    this.log.push(entry);
    for (const a of this.adapters) {
      if (a.side?.(method, path, body, res)) {
        Object.assign(entry, { protocol: a.protocol, decision: 'side' });
        return;
      }
    }
    const adapter = this.adapters.find((a) => a.matches(method, path));
    if (!adapter) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `scripted model: no protocol for ${method} ${path}` } }));
      return;
    }
    entry.protocol = adapter.protocol;
    const conv = adapter.parse(body, path);
    let decision: Decision;
    const judge = scriptedJudgeEnvelope(req.headers);
    if (judge) {
      // a judge prompt: the script travels with the request, retries are later user turns
      decision = {
        kind: 'text',
        text: scriptedJudgeAnswer(conv.userTexts[0] ?? '', judge.script, conv.userTexts.length, judge.repeat),
      };
      entry.note = 'judge';
    } else if (!this.script) decision = { kind: 'text', text: 'Done.' };
    else {
      const d = decide(
        this.script,
        conv.toolResults.map((r) => ({ text: r.text, isError: r.isError })),
      );
      if (d.kind === 'text') decision = d;
      else {
        const name = offeredName(
          d.tool,
          conv.tools.map((t) => t.name),
        );
        if (name)
          decision = {
            kind: 'tool_call',
            callId: `call_${conv.toolResults.length}_${randomBytes(6).toString('hex')}`,
            name,
            args: d.args,
          };
        else {
          this.missingTools.add(d.tool);
          entry.note = `tool ${d.tool} not offered`;
          decision = { kind: 'text', text: `The memory tool ${d.tool} is not available to me.` };
        }
      }
    }
    entry.decision = judge ? 'judge' : decision.kind;
    if (decision.kind === 'tool_call') entry.tool = decision.name;
    entry.input_tokens = roughTokens(raw.length);
    entry.output_tokens = roughTokens(Buffer.byteLength(JSON.stringify(decision)));
    adapter.respond(res, conv, decision, { input_tokens: entry.input_tokens, output_tokens: entry.output_tokens });
  }
}
