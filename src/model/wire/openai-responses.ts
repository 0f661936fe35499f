// OpenAI Responses API adapter for the scripted model server.
// Client: Codex (`[model_providers.x] base_url = "http://127.0.0.1:<port>/v1"`, wire_api = "responses"),
// which sends POST /v1/responses with stream: true and expects SSE `response.*` events that end
// with `response.completed` (without it Codex reports "stream closed before response.completed"
// and retries).
import type { ServerResponse } from 'node:http';
import type { Conversation, Decision, ToolOffer, ToolResult, Usage, WireAdapter } from './contract.js';
import { isObj, newId, partsText, pathname, sendJson, sendSse, str, type Json } from './util.js';

/**
 * Codex prefixes MCP results with "Wall time: 0.0102 seconds\nOutput:\n"; the prefix is removed so
 * `text` is the tool's own output.
 */
const CODEX_WALL_TIME = /^Wall time: [0-9.]+ seconds\nOutput:\n?/;

/**
 * function_call_output.output is a string, an array of content parts, or {content, success}.
 * Codex 0.169 sends a string for successful structured MCP results and an array of input_text parts
 * otherwise (including MCP errors); it does not put an error flag on the wire, so isError is only
 * true for an explicit `success: false`.
 */
function outputText(output: unknown): { text: string; isError: boolean } {
  const r = rawOutputText(output);
  return { text: r.text.replace(CODEX_WALL_TIME, ''), isError: r.isError };
}

function rawOutputText(output: unknown): { text: string; isError: boolean } {
  if (typeof output === 'string') return { text: output, isError: false };
  if (Array.isArray(output)) return { text: partsText(output), isError: false };
  if (isObj(output)) {
    const inner = 'content' in output ? output.content : output;
    const text = typeof inner === 'string' || Array.isArray(inner) ? partsText(inner) : JSON.stringify(inner);
    return { text, isError: output.success === false };
  }
  return { text: '', isError: false };
}

/**
 * Codex groups MCP tools in `{"type":"namespace","name":"mcp__memory","tools":[{"type":"function","name":"create_entities",...}]}`
 * and expects the call back as `{"type":"function_call","namespace":"mcp__memory","name":"create_entities",...}`.
 * The adapter offers such tools flat as `mcp__memory__create_entities` and splits the name again in respond().
 */
function joinNs(namespace: string, name: string): string {
  if (!namespace) return name;
  return namespace.endsWith('_') ? namespace + name : `${namespace}__${name}`;
}

interface NsName {
  namespace: string;
  name: string;
}
/** Per-conversation map flat name -> {namespace, name}, filled by parse(), read by respond(). */
const nsByConv = new WeakMap<Conversation, Map<string, NsName>>();

function collectTools(list: unknown, into: ToolOffer[], ns: Map<string, NsName>, namespace = ''): void {
  if (!Array.isArray(list)) return;
  for (const t of list) {
    if (!isObj(t)) continue;
    if (t.type === 'namespace' && Array.isArray(t.tools)) {
      collectTools(t.tools, into, ns, str(t.name));
    } else if (typeof t.name === 'string') {
      const flat = joinNs(namespace, t.name);
      if (namespace) ns.set(flat, { namespace, name: t.name });
      into.push({ name: flat });
    } else if (typeof t.type === 'string') {
      into.push({ name: t.type }); // built-ins without a name: web_search, local_shell, ...
    }
  }
}

function parse(body: unknown): Conversation {
  const b = isObj(body) ? body : {};
  const tools: ToolOffer[] = [];
  const ns = new Map<string, NsName>();
  collectTools(b.tools, tools, ns);
  const callNames = new Map<string, string>();
  const toolResults: ToolResult[] = [];
  const userTexts: string[] = [];
  const input: unknown[] =
    typeof b.input === 'string'
      ? [{ type: 'message', role: 'user', content: b.input }]
      : Array.isArray(b.input)
        ? b.input
        : [];
  for (const it of input) {
    if (!isObj(it)) continue;
    const type = it.type ?? (typeof it.role === 'string' ? 'message' : undefined);
    switch (type) {
      case 'message':
        if (it.role === 'user') userTexts.push(partsText(it.content));
        break;
      case 'function_call':
      case 'custom_tool_call':
        callNames.set(str(it.call_id), joinNs(str(it.namespace), str(it.name)));
        break;
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const callId = str(it.call_id);
        const name = callNames.get(callId);
        const { text, isError } = outputText(it.output);
        toolResults.push({ callId, ...(name ? { name } : {}), text, isError });
        break;
      }
      default:
        break;
    }
  }
  const conv: Conversation = {
    tools,
    toolResults,
    userTexts,
    stream: b.stream === true,
    model: str(b.model) || 'scripted',
  };
  nsByConv.set(conv, ns);
  return conv;
}

function usageFull(u: Usage): Json {
  return {
    input_tokens: u.input_tokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: u.output_tokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: u.input_tokens + u.output_tokens,
  };
}

function respond(res: ServerResponse, conv: Conversation, decision: Decision, usage: Usage): void {
  const respId = newId('resp_');
  const createdAt = Math.floor(Date.now() / 1000);
  const base = { id: respId, object: 'response', created_at: createdAt, model: conv.model };

  let doneItem: Json;
  if (decision.kind === 'tool_call') {
    const split = nsByConv.get(conv)?.get(decision.name);
    doneItem = {
      type: 'function_call',
      id: newId('fc_'),
      call_id: decision.callId,
      ...(split ? { namespace: split.namespace, name: split.name } : { name: decision.name }),
      arguments: JSON.stringify(decision.args),
      status: 'completed',
    };
  } else {
    doneItem = {
      type: 'message',
      id: newId('msg_'),
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: decision.text, annotations: [] }],
    };
  }
  const completed = { ...base, status: 'completed', output: [doneItem], usage: usageFull(usage) };

  if (!conv.stream) {
    sendJson(res, 200, completed);
    return;
  }

  const events: Json[] = [];
  events.push({ type: 'response.created', response: { ...base, status: 'in_progress', output: [] } });
  const itemId = str(doneItem.id);
  if (decision.kind === 'tool_call') {
    events.push({
      type: 'response.output_item.added',
      output_index: 0,
      item: { ...doneItem, arguments: '', status: 'in_progress' },
    });
    events.push({
      type: 'response.function_call_arguments.delta',
      item_id: itemId,
      output_index: 0,
      delta: doneItem.arguments,
    });
    events.push({
      type: 'response.function_call_arguments.done',
      item_id: itemId,
      output_index: 0,
      arguments: doneItem.arguments,
    });
  } else {
    const part = { type: 'output_text', text: '', annotations: [] };
    events.push({
      type: 'response.output_item.added',
      output_index: 0,
      item: { ...doneItem, status: 'in_progress', content: [] },
    });
    events.push({ type: 'response.content_part.added', item_id: itemId, output_index: 0, content_index: 0, part });
    events.push({
      type: 'response.output_text.delta',
      item_id: itemId,
      output_index: 0,
      content_index: 0,
      delta: decision.text,
    });
    events.push({
      type: 'response.output_text.done',
      item_id: itemId,
      output_index: 0,
      content_index: 0,
      text: decision.text,
    });
    events.push({
      type: 'response.content_part.done',
      item_id: itemId,
      output_index: 0,
      content_index: 0,
      part: { ...part, text: decision.text },
    });
  }
  events.push({ type: 'response.output_item.done', output_index: 0, item: doneItem });
  events.push({ type: 'response.completed', response: completed });

  let out = '';
  events.forEach((e, i) => {
    out += `event: ${str(e.type)}\ndata: ${JSON.stringify({ ...e, sequence_number: i })}\n\n`;
  });
  sendSse(res, out, { 'x-request-id': newId('req_') });
}

function side(method: string, path: string, _body: unknown, res: ServerResponse): boolean {
  const p = pathname(path);
  if (method === 'GET' && p.endsWith('/models')) {
    // Codex asks `<base_url>/models?client_version=...` and expects its own catalogue shape
    // `{ "models": [ModelInfo...] }`; an empty list keeps its built-in defaults.
    // `data` is included for plain OpenAI-style clients.
    sendJson(res, 200, { object: 'list', data: [], models: [] });
    return true;
  }
  return false;
}

export const openaiResponses: WireAdapter = {
  protocol: 'openai-responses',
  matches: (method, path) => method === 'POST' && pathname(path).endsWith('/responses'),
  parse: (body) => parse(body),
  respond,
  side,
};
