// OpenAI Chat Completions adapter for the scripted model server.
// Clients: Qwen Code (OPENAI_BASE_URL=http://127.0.0.1:<port>/v1) and opencode (custom provider
// using @ai-sdk/openai-compatible with options.baseURL=http://127.0.0.1:<port>/v1). Both send
//   POST <base>/chat/completions   {model, messages, tools, stream: true, stream_options: {include_usage: true}}
// and expect an SSE stream of `chat.completion.chunk` objects ending with `data: [DONE]`.
// Non-streaming requests (stream absent/false) get one `chat.completion` JSON object.
// Side requests answered: GET <base>/models (and /models/<id>); neither agent asks for them
// today, and adapters listed earlier in ALL_ADAPTERS answer a bare /models first.
import type { ServerResponse } from 'node:http';
import type { Conversation, Decision, ToolOffer, ToolResult, Usage, WireAdapter } from './contract.js';
import { isObj, newId, partsText, pathname, sendJson, sendSse, str, type Json } from './util.js';

/**
 * Chat Completions has no error flag on a tool message. The agents put the error in the text:
 * Qwen Code 0.15 sends "MCP tool '<tool>' reported tool error for function call: ..." for an MCP
 * isError result; opencode sends the thrown message. Heuristic: leading "Error"/"MCP error"/
 * "MCP tool '...' reported tool error", or a JSON body with `isError: true` or an `error` key.
 */
function looksLikeError(text: string): boolean {
  const t = text.trimStart();
  if (/^(error\b|mcp error\b|mcp tool '[^']*' reported tool error|tool execution failed|failed to)/i.test(t))
    return true;
  if (t.startsWith('{')) {
    try {
      const j: unknown = JSON.parse(t);
      if (isObj(j) && (j.isError === true || 'error' in j)) return true;
    } catch {
      /* not JSON */
    }
  }
  return false;
}

function parse(body: unknown): Conversation {
  const b = isObj(body) ? body : {};
  const tools: ToolOffer[] = [];
  if (Array.isArray(b.tools)) {
    for (const t of b.tools) {
      if (!isObj(t)) continue;
      const fn = isObj(t.function) ? t.function : t; // {type:'function', function:{name}}; tolerate flat
      if (typeof fn.name === 'string') tools.push({ name: fn.name });
    }
  } else if (Array.isArray(b.functions)) {
    // legacy `functions` field
    for (const f of b.functions) if (isObj(f) && typeof f.name === 'string') tools.push({ name: f.name });
  }
  const callNames = new Map<string, string>(); // tool_call id -> function name
  const toolResults: ToolResult[] = [];
  const userTexts: string[] = [];
  const messages = Array.isArray(b.messages) ? b.messages : [];
  for (const m of messages) {
    if (!isObj(m)) continue;
    if (m.role === 'user') {
      userTexts.push(partsText(m.content));
    } else if (m.role === 'assistant' && Array.isArray(m.tool_calls)) {
      for (const tc of m.tool_calls) {
        if (isObj(tc) && typeof tc.id === 'string') {
          callNames.set(tc.id, isObj(tc.function) ? str(tc.function.name) : '');
        }
      }
    } else if (m.role === 'tool') {
      const callId = str(m.tool_call_id);
      const text = partsText(m.content);
      const name = callNames.get(callId) || (typeof m.name === 'string' ? m.name : undefined);
      toolResults.push({ callId, ...(name ? { name } : {}), text, isError: looksLikeError(text) });
    } else if (m.role === 'function') {
      // legacy function-result message
      const text = partsText(m.content);
      toolResults.push({ callId: str(m.name), name: str(m.name), text, isError: looksLikeError(text) });
    }
  }
  return { tools, toolResults, userTexts, stream: b.stream === true, model: str(b.model) };
}

function usageObj(u: Usage): Json {
  return {
    prompt_tokens: u.input_tokens,
    completion_tokens: u.output_tokens,
    total_tokens: u.input_tokens + u.output_tokens,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0 },
  };
}

function respond(res: ServerResponse, conv: Conversation, decision: Decision, usage: Usage): void {
  const id = newId('chatcmpl-');
  const created = Math.floor(Date.now() / 1000);
  const model = conv.model || 'scripted';
  const finish = decision.kind === 'tool_call' ? 'tool_calls' : 'stop';
  const args = decision.kind === 'tool_call' ? JSON.stringify(decision.args) : '';

  if (!conv.stream) {
    const message: Json =
      decision.kind === 'tool_call'
        ? {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: decision.callId, type: 'function', function: { name: decision.name, arguments: args } }],
          }
        : { role: 'assistant', content: decision.text };
    sendJson(res, 200, {
      id,
      object: 'chat.completion',
      created,
      model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
      usage: usageObj(usage),
    });
    return;
  }

  let out = '';
  const chunk = (choices: Json[], extra: Json = {}): void => {
    out += `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...extra })}\n\n`;
  };
  // 1) role chunk
  chunk([{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]);
  // 2) payload
  if (decision.kind === 'tool_call') {
    // name + id first with empty arguments, then the arguments (split in two to exercise accumulation)
    chunk([
      {
        index: 0,
        delta: {
          tool_calls: [
            { index: 0, id: decision.callId, type: 'function', function: { name: decision.name, arguments: '' } },
          ],
        },
        logprobs: null,
        finish_reason: null,
      },
    ]);
    const cut = Math.floor(args.length / 2);
    for (const piece of [args.slice(0, cut), args.slice(cut)]) {
      if (!piece) continue;
      chunk([
        {
          index: 0,
          delta: { tool_calls: [{ index: 0, function: { arguments: piece } }] },
          logprobs: null,
          finish_reason: null,
        },
      ]);
    }
  } else {
    chunk([{ index: 0, delta: { content: decision.text }, logprobs: null, finish_reason: null }]);
  }
  // 3) finish chunk, then usage chunk (choices: []) as OpenAI does with stream_options.include_usage.
  chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: finish }]);
  chunk([], { usage: usageObj(usage) });
  sendSse(res, out + 'data: [DONE]\n\n');
}

function modelEntry(id: string): Json {
  return { id, object: 'model', created: 1700000000, owned_by: 'memeval' };
}

function side(method: string, path: string, _body: unknown, res: ServerResponse): boolean {
  const p = pathname(path);
  if (method === 'GET' && /\/models$/.test(p)) {
    sendJson(res, 200, { object: 'list', data: [modelEntry('scripted')] });
    return true;
  }
  const m = /\/models\/([^/]+)$/.exec(p);
  if (method === 'GET' && m) {
    sendJson(res, 200, modelEntry(decodeURIComponent(m[1] ?? 'scripted')));
    return true;
  }
  return false;
}

export const openaiChat: WireAdapter = {
  protocol: 'openai-chat',
  matches: (method, path) => method === 'POST' && /\/chat\/completions$/.test(pathname(path)),
  parse: (body) => parse(body),
  respond,
  side,
};
