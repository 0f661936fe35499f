// Gemini API (generativelanguage v1beta) adapter for the scripted model server.
// Client: Gemini CLI via @google/genai with GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:<port>
// (+ GEMINI_API_KEY). It sends
//   POST /v1beta/models/<model>:streamGenerateContent?alt=sse   main turns (SSE answer)
//   POST /v1beta/models/<model>:generateContent                 auxiliary JSON-mode calls
//   POST /v1beta/models/<model>:countTokens                     token counting (side)
// Tool results come back as `functionResponse` parts in `user` contents.
import type { ServerResponse } from 'node:http';
import type { Conversation, Decision, ToolOffer, ToolResult, Usage, WireAdapter } from './contract.js';
import { isObj, pathname, roughTokens, sendJson, sendSse, str, type Json } from './util.js';

/** `/v1beta/models/gemini-2.5-pro:streamGenerateContent` -> { model, method } */
function modelMethod(path: string): { model: string; method: string } | null {
  const m = /\/models\/([^/:]+):([A-Za-z]+)$/.exec(pathname(path));
  return m ? { model: decodeURIComponent(m[1] ?? ''), method: m[2] ?? '' } : null;
}

/** Text of a functionResponse.response object: Gemini CLI sends {output: string} or {error: string}. */
function responseText(resp: unknown): { text: string; isError: boolean } {
  if (!isObj(resp)) return { text: typeof resp === 'string' ? resp : JSON.stringify(resp ?? null), isError: false };
  if (typeof resp.error === 'string') return { text: resp.error, isError: true };
  if (resp.error !== undefined) return { text: JSON.stringify(resp.error), isError: true };
  if (typeof resp.output === 'string') return { text: resp.output, isError: false };
  if (Array.isArray(resp.content)) {
    // MCP-shaped {content:[{type:'text',text}]}
    const parts = resp.content.map((c) => (isObj(c) && typeof c.text === 'string' ? c.text : JSON.stringify(c)));
    return { text: parts.join('\n'), isError: resp.isError === true };
  }
  return { text: JSON.stringify(resp), isError: false };
}

function parse(body: unknown, path: string): Conversation {
  const b = isObj(body) ? body : {};
  const tools: ToolOffer[] = [];
  if (Array.isArray(b.tools)) {
    for (const t of b.tools) {
      if (!isObj(t) || !Array.isArray(t.functionDeclarations)) continue;
      for (const d of t.functionDeclarations) if (isObj(d) && typeof d.name === 'string') tools.push({ name: d.name });
    }
  }
  const toolResults: ToolResult[] = [];
  const seenIds = new Set<string>();
  const userTexts: string[] = [];
  const contents = Array.isArray(b.contents) ? b.contents : [];
  for (const c of contents) {
    if (!isObj(c) || !Array.isArray(c.parts)) continue;
    const role = str(c.role) || 'user';
    for (const p of c.parts) {
      if (!isObj(p)) continue;
      if (isObj(p.functionResponse)) {
        const fr = p.functionResponse;
        const id = str(fr.id);
        // Gemini CLI 0.61 `--resume` replays every functionResponse twice (same id, same
        // content) in the restored history; count each call id once.
        if (id) {
          if (seenIds.has(id)) continue;
          seenIds.add(id);
        }
        const { text, isError } = responseText(fr.response);
        const name = str(fr.name);
        toolResults.push({ callId: id || name, ...(name ? { name } : {}), text, isError });
      } else if (role === 'user' && typeof p.text === 'string' && p.thought !== true) {
        // one entry per text part: Gemini CLI puts its <session_context> block and the prompt
        // as two parts of the same user content.
        userTexts.push(p.text);
      }
    }
  }
  const mm = modelMethod(path);
  return {
    tools,
    toolResults,
    userTexts,
    stream: mm?.method === 'streamGenerateContent',
    model: mm?.model ?? '',
  };
}

function usageMetadata(u: Usage): Json {
  return {
    promptTokenCount: u.input_tokens,
    candidatesTokenCount: u.output_tokens,
    totalTokenCount: u.input_tokens + u.output_tokens,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: u.input_tokens }],
  };
}

function candidateResponse(conv: Conversation, decision: Decision, usage: Usage): Json {
  const part: Json =
    decision.kind === 'tool_call'
      ? { functionCall: { id: decision.callId, name: decision.name, args: decision.args } }
      : { text: decision.text };
  return {
    candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: usageMetadata(usage),
    modelVersion: conv.model || 'scripted',
    responseId: `resp-${Date.now().toString(36)}`,
  };
}

function respond(res: ServerResponse, conv: Conversation, decision: Decision, usage: Usage): void {
  sendGenerated(res, conv.stream, candidateResponse(conv, decision, usage));
}

/**
 * streamGenerateContent?alt=sse: one SSE event per GenerateContentResponse, "\r\n\r\n" separated
 * (what the real API sends; @google/genai splits on blank lines of either style). Gemini CLI
 * always passes alt=sse; a caller without it would expect a JSON array instead.
 */
function sendGenerated(res: ServerResponse, stream: boolean, resp: Json): void {
  if (stream) sendSse(res, `data: ${JSON.stringify(resp)}\r\n\r\n`);
  else sendJson(res, 200, resp);
}

/**
 * Known Gemini CLI 0.61 auxiliary JSON fields whose generic filler value would be wrong:
 * - complexity_score (NumericalClassifierStrategy, model "auto"): zod requires 1..100; 1 => flash/lite.
 * - confidence (LLM loop detection): 0 => "no loop".
 * - next_speaker (next-speaker check): "user" => stop.
 */
const KNOWN_FIELDS: Record<string, unknown> = { complexity_score: 1, confidence: 0, next_speaker: 'user' };

/** Minimal value satisfying a JSON schema (enum[0], minimum, all properties filled). */
function fromSchema(s: unknown, key = ''): unknown {
  if (key in KNOWN_FIELDS) return KNOWN_FIELDS[key];
  if (!isObj(s)) return null;
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
  const type =
    typeof s.type === 'string' ? s.type.toLowerCase() : Array.isArray(s.type) ? str(s.type[0]).toLowerCase() : '';
  switch (type) {
    case 'object': {
      const out: Json = {};
      const props = isObj(s.properties) ? s.properties : {};
      for (const [k, v] of Object.entries(props)) out[k] = fromSchema(v, k);
      return out;
    }
    case 'array':
      return [];
    case 'string':
      return 'scripted';
    case 'number':
    case 'integer':
      return typeof s.minimum === 'number' ? s.minimum : 0;
    case 'boolean':
      return false;
    default:
      return isObj(s.properties) ? fromSchema({ ...s, type: 'object' }, key) : null;
  }
}

function side(method: string, path: string, body: unknown, res: ServerResponse): boolean {
  const p = pathname(path);
  const mm = modelMethod(path);
  if (method === 'POST' && mm?.method === 'countTokens') {
    const n = roughTokens(Buffer.byteLength(JSON.stringify(body ?? {})));
    sendJson(res, 200, { totalTokens: n, promptTokensDetails: [{ modality: 'TEXT', tokenCount: n }] });
    return true;
  }
  if (method === 'POST' && mm?.method === 'embedContent') {
    sendJson(res, 200, { embedding: { values: [0] } });
    return true;
  }
  // Auxiliary JSON-mode calls (model router / next-speaker / loop-detection classifiers):
  // no tools, generationConfig.responseMimeType 'application/json' (+ responseJsonSchema/responseSchema).
  if (
    method === 'POST' &&
    (mm?.method === 'generateContent' || mm?.method === 'streamGenerateContent') &&
    isObj(body)
  ) {
    const gc = isObj(body.generationConfig) ? body.generationConfig : {};
    const hasTools = Array.isArray(body.tools) && body.tools.length > 0;
    if (!hasTools && gc.responseMimeType === 'application/json') {
      const schema = gc.responseJsonSchema ?? gc.responseSchema ?? gc._responseJsonSchema;
      const text = JSON.stringify(fromSchema(schema) ?? {});
      const resp = {
        candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
        modelVersion: mm.model,
      };
      sendGenerated(res, mm.method === 'streamGenerateContent', resp);
      return true;
    }
  }
  // also matches /v1/models: keep this adapter after anthropic-messages in ALL_ADAPTERS
  if (method === 'GET' && /\/v1(beta|alpha)?\/models$/.test(p)) {
    sendJson(res, 200, {
      models: [
        {
          name: 'models/scripted',
          displayName: 'scripted',
          supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens'],
        },
      ],
    });
    return true;
  }
  return false;
}

export const gemini: WireAdapter = {
  protocol: 'gemini',
  matches: (method, path) => {
    if (method !== 'POST') return false;
    const mm = modelMethod(path);
    return mm?.method === 'generateContent' || mm?.method === 'streamGenerateContent';
  },
  parse,
  respond,
  side,
};
