// Request shapes the provider reads and the answers it writes, per protocol. Chat answers reuse
// the scripted model's OpenAI Chat and Anthropic Messages responders (a text decision).
import type { ServerResponse } from 'node:http';
import { anthropicMessages } from '../wire/anthropic-messages.js';
import { openaiChat } from '../wire/openai-chat.js';
import { isObj, partsText, pathname, roughTokens, sendJson, str, type Json } from '../wire/util.js';

export type Route =
  | { kind: 'embeddings'; protocol: 'openai-embeddings' | 'ollama-embed' | 'ollama-embeddings' }
  | { kind: 'chat'; protocol: 'openai-chat' | 'anthropic-messages' | 'ollama-chat' | 'ollama-generate' }
  | { kind: 'models'; protocol: 'openai-models' | 'ollama-tags' };

export function route(method: string, path: string): Route | undefined {
  const p = pathname(path);
  if (method === 'GET') {
    if (/\/models$/.test(p)) return { kind: 'models', protocol: 'openai-models' };
    if (p === '/api/tags') return { kind: 'models', protocol: 'ollama-tags' };
    return undefined;
  }
  if (method !== 'POST') return undefined;
  if (p === '/api/embed') return { kind: 'embeddings', protocol: 'ollama-embed' };
  if (p === '/api/embeddings') return { kind: 'embeddings', protocol: 'ollama-embeddings' };
  if (p === '/api/chat') return { kind: 'chat', protocol: 'ollama-chat' };
  if (p === '/api/generate') return { kind: 'chat', protocol: 'ollama-generate' };
  if (/\/embeddings$/.test(p)) return { kind: 'embeddings', protocol: 'openai-embeddings' };
  if (/\/chat\/completions$/.test(p)) return { kind: 'chat', protocol: 'openai-chat' };
  if (/\/messages$/.test(p)) return { kind: 'chat', protocol: 'anthropic-messages' };
  return undefined;
}

/** Embedding inputs of a request: OpenAI `input` (string or array), Ollama `input` or legacy `prompt`. */
export function embeddingInputs(body: Json): string[] {
  const v = body.input ?? body.prompt;
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x)));
  return [];
}

/** Every message text of a chat request, system prompts included, as "role: text". */
export function chatTexts(protocol: Route['protocol'], body: Json): string[] {
  const out: string[] = [];
  if (protocol === 'ollama-generate') {
    if (typeof body.system === 'string') out.push(`system: ${body.system}`);
    out.push(`user: ${str(body.prompt)}`);
    return out;
  }
  if (protocol === 'anthropic-messages' && body.system !== undefined) out.push(`system: ${partsText(body.system)}`);
  for (const m of Array.isArray(body.messages) ? body.messages : []) {
    if (isObj(m)) out.push(`${str(m.role)}: ${partsText(m.content)}`);
  }
  return out;
}

export function sendEmbeddings(
  res: ServerResponse,
  protocol: Route['protocol'],
  body: Json,
  vectors: number[][],
  tokens: number,
): void {
  const model = str(body.model) || 'memeval-embed';
  if (protocol === 'ollama-embeddings') return sendJson(res, 200, { embedding: vectors[0] ?? [] });
  if (protocol === 'ollama-embed')
    return sendJson(res, 200, {
      model,
      embeddings: vectors,
      total_duration: 0,
      load_duration: 0,
      prompt_eval_count: tokens,
    });
  const b64 = body.encoding_format === 'base64';
  sendJson(res, 200, {
    object: 'list',
    model,
    data: vectors.map((v, index) => ({
      object: 'embedding',
      index,
      embedding: b64 ? Buffer.from(new Float32Array(v).buffer).toString('base64') : v,
    })),
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  });
}

export function sendChat(
  res: ServerResponse,
  protocol: Route['protocol'],
  body: Json,
  answer: string,
  inputTokens: number,
): void {
  const model = str(body.model) || 'memeval-provider';
  const usage = { input_tokens: inputTokens, output_tokens: roughTokens(Buffer.byteLength(answer)) };
  const stream = body.stream === true;
  const conv = { tools: [], toolResults: [], userTexts: [], stream, model };
  if (protocol === 'openai-chat') return openaiChat.respond(res, conv, { kind: 'text', text: answer }, usage);
  if (protocol === 'anthropic-messages')
    return anthropicMessages.respond(res, conv, { kind: 'text', text: answer }, usage);
  const created_at = new Date(0).toISOString();
  const done = {
    done: true,
    done_reason: 'stop',
    total_duration: 0,
    load_duration: 0,
    prompt_eval_count: usage.input_tokens,
    eval_count: usage.output_tokens,
  };
  const piece =
    protocol === 'ollama-chat'
      ? { model, created_at, message: { role: 'assistant', content: answer } }
      : { model, created_at, response: answer };
  // Ollama streams by default: newline-delimited JSON objects, the last one `done: true`
  if (body.stream === false) return sendJson(res, 200, { ...piece, ...done });
  const empty =
    protocol === 'ollama-chat'
      ? { model, created_at, message: { role: 'assistant', content: '' } }
      : { model, created_at, response: '' };
  res.writeHead(200, { 'content-type': 'application/x-ndjson' });
  res.end(`${JSON.stringify({ ...piece, done: false })}\n${JSON.stringify({ ...empty, ...done })}\n`);
}

export function sendModels(res: ServerResponse, protocol: Route['protocol']): void {
  const names = ['memeval-provider', 'text-embedding-3-small', 'text-embedding-3-large', 'text-embedding-ada-002'];
  if (protocol === 'ollama-tags')
    return sendJson(res, 200, {
      models: names.map((name) => ({
        name,
        model: name,
        modified_at: new Date(0).toISOString(),
        size: 0,
        digest: '0',
        details: {},
      })),
    });
  sendJson(res, 200, {
    object: 'list',
    data: names.map((id) => ({ id, object: 'model', created: 0, owned_by: 'memeval' })),
  });
}
