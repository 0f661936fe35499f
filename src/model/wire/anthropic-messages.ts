// Anthropic Messages API adapter for the scripted model server.
// Client: Claude Code (`ANTHROPIC_BASE_URL=http://127.0.0.1:<port>`), which sends
//   POST /v1/messages?beta=true            (stream: true, SSE answer expected)
//   POST /v1/messages/count_tokens?beta=true (side request, rarely; answered here)
import type { ServerResponse } from 'node:http';
import type { Conversation, Decision, ToolOffer, ToolResult, Usage, WireAdapter } from './contract.js';
import { isObj, newId, partsText, pathname, roughTokens, sendJson, sendSse, str, type Json } from './util.js';

function parse(body: unknown): Conversation {
  const b = isObj(body) ? body : {};
  const tools: ToolOffer[] = [];
  if (Array.isArray(b.tools)) {
    for (const t of b.tools) if (isObj(t) && typeof t.name === 'string') tools.push({ name: t.name });
  }
  const toolNames = new Map<string, string>(); // tool_use id -> tool name (from assistant turns)
  const toolResults: ToolResult[] = [];
  const userTexts: string[] = [];
  const messages = Array.isArray(b.messages) ? b.messages : [];
  for (const m of messages) {
    if (!isObj(m)) continue;
    const role = m.role;
    const content = m.content;
    if (typeof content === 'string') {
      if (role === 'user') userTexts.push(content);
      continue;
    }
    if (!Array.isArray(content)) continue;
    for (const blk of content) {
      if (!isObj(blk)) continue;
      if (role === 'assistant' && blk.type === 'tool_use' && typeof blk.id === 'string') {
        toolNames.set(blk.id, str(blk.name));
      } else if (role === 'user' && blk.type === 'text') {
        userTexts.push(str(blk.text));
      } else if (role === 'user' && blk.type === 'tool_result') {
        const callId = str(blk.tool_use_id);
        const name = toolNames.get(callId);
        toolResults.push({
          callId,
          ...(name ? { name } : {}),
          text: partsText(blk.content),
          isError: blk.is_error === true,
        });
      }
    }
  }
  return {
    tools,
    toolResults,
    userTexts,
    stream: b.stream === true,
    model: str(b.model) || 'scripted',
  };
}

function contentBlock(decision: Decision): Json {
  return decision.kind === 'tool_call'
    ? { type: 'tool_use', id: decision.callId, name: decision.name, input: decision.args }
    : { type: 'text', text: decision.text };
}

function usageFull(u: Usage): Json {
  return {
    input_tokens: u.input_tokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: u.output_tokens,
  };
}

function sse(event: string, data: Json): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

function respond(res: ServerResponse, conv: Conversation, decision: Decision, usage: Usage): void {
  const id = newId('msg_');
  const stopReason = decision.kind === 'tool_call' ? 'tool_use' : 'end_turn';
  const headers = { 'request-id': newId('req_'), 'anthropic-organization-id': 'scripted' };
  if (!conv.stream) {
    sendJson(
      res,
      200,
      {
        id,
        type: 'message',
        role: 'assistant',
        model: conv.model,
        content: [contentBlock(decision)],
        stop_reason: stopReason,
        stop_sequence: null,
        usage: usageFull(usage),
      },
      headers,
    );
    return;
  }
  let out = '';
  out += sse('message_start', {
    type: 'message_start',
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model: conv.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: usageFull({ input_tokens: usage.input_tokens, output_tokens: 1 }),
    },
  });
  if (decision.kind === 'tool_call') {
    out += sse('content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'tool_use', id: decision.callId, name: decision.name, input: {} },
    });
    out += sse('content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'input_json_delta', partial_json: JSON.stringify(decision.args) },
    });
  } else {
    out += sse('content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'text', text: '' },
    });
    out += sse('content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'text_delta', text: decision.text },
    });
  }
  out += sse('content_block_stop', { type: 'content_block_stop', index: 0 });
  out += sse('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  });
  out += sse('message_stop', { type: 'message_stop' });
  sendSse(res, out, headers);
}

function side(method: string, path: string, body: unknown, res: ServerResponse): boolean {
  const p = pathname(path);
  if (method === 'HEAD' && (p === '' || p === '/')) {
    // Claude Code (Bun fetch) sends `HEAD /` to the base URL once at start-up as a reachability probe.
    res.writeHead(200, { 'content-length': '0' });
    res.end();
    return true;
  }
  if (method === 'POST' && p.endsWith('/v1/messages/count_tokens')) {
    sendJson(res, 200, { input_tokens: roughTokens(Buffer.byteLength(JSON.stringify(body ?? {}))) });
    return true;
  }
  if (method === 'GET' && p.endsWith('/v1/models')) {
    const m = { type: 'model', id: 'claude-scripted', display_name: 'Scripted', created_at: '2025-01-01T00:00:00Z' };
    sendJson(res, 200, { data: [m], has_more: false, first_id: m.id, last_id: m.id });
    return true;
  }
  if (method === 'GET' && /\/v1\/models\/[^/]+$/.test(p)) {
    const id = decodeURIComponent(p.slice(p.lastIndexOf('/') + 1));
    sendJson(res, 200, { type: 'model', id, display_name: id, created_at: '2025-01-01T00:00:00Z' });
    return true;
  }
  return false;
}

export const anthropicMessages: WireAdapter = {
  protocol: 'anthropic-messages',
  matches: (method, path) => method === 'POST' && pathname(path).endsWith('/v1/messages'),
  parse: (body) => parse(body),
  respond,
  side,
};
