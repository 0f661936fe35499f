/**
 * The model wire adapters' part of the test kit (test/unit/model/{anthropic-messages,openai-chat,
 * openai-responses,gemini}.test.ts): what an adapter wrote for a reply, and its server-sent
 * events read back, checked to be nothing else.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import type { Conversation, Decision, Usage, WireAdapter } from '../src/model/wire/contract.ts';

/** What an adapter wrote: the status and headers of writeHead, and the body. */
export interface Written {
  status: number;
  headers: Record<string, unknown>;
  body: string;
}

/** A ServerResponse stand-in that keeps what the adapter wrote (status 0: nothing was). */
export function recorder(): { res: ServerResponse; r: Written } {
  const r: Written = { status: 0, headers: {}, body: '' };
  const res = {
    writeHead(status: number, headers: Record<string, unknown>) {
      r.status = status;
      r.headers = headers;
      return res;
    },
    end(body?: string) {
      r.body += body ?? '';
    },
  };
  return { res: res as unknown as ServerResponse, r };
}

/** What `adapter.respond` wrote for this decision. */
export function answer(adapter: WireAdapter, conv: Conversation, decision: Decision, usage: Usage): Written {
  const { res, r } = recorder();
  adapter.respond(res, conv, decision, usage);
  return r;
}

/**
 * `event: <name>\ndata: {...}\n\n` frames, checked to be nothing else; `name` is the character
 * class an event name is made of on this wire (e.g. `a-z_`, or `a-z_.` for dotted names).
 */
export function sseEvents(body: string, name: string): { event: string; data: Record<string, any> }[] {
  assert.match(body, new RegExp(`^(event: [${name}]+\\ndata: \\{.*\\}\\n\\n)+$`));
  return [...body.matchAll(new RegExp(`event: ([${name}]+)\\ndata: (.*)\\n\\n`, 'g'))].map((m) => ({
    event: m[1],
    data: JSON.parse(m[2]) as Record<string, any>,
  }));
}
