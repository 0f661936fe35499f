import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gemini } from '../../../src/model/wire/gemini.js';
import { answer, recorder } from '../../wire-kit.ts';

// Gemini CLI 0.61's third request of a remember prompt, recorded from the scripted model server
// and cut down (fewer built-in tools, no systemInstruction). MCP results come back as
// functionResponse parts wrapped in <untrusted_context>.
const PATH = '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse';
const PROMPT = 'Remember for later sessions: my preferred package manager is pnpm.';
const decl = (name: string) => ({ name, description: name, parametersJsonSchema: { type: 'object', properties: {} } });
const recorded = {
  contents: [
    {
      parts: [
        {
          text: '<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n</session_context>',
        },
        { text: PROMPT },
      ],
      role: 'user',
    },
    {
      parts: [
        {
          functionCall: {
            id: 'call_0_419554d0da2d',
            args: { entities: [{ name: 'user', entityType: 'preference', observations: [] }] },
            name: 'mcp_memory_create_entities',
          },
          thoughtSignature: 'skip_thought_signature_validator',
        },
      ],
      role: 'model',
    },
    {
      parts: [
        {
          functionResponse: {
            name: 'mcp_memory_create_entities',
            response: {
              output:
                '<untrusted_context>\n[{"name":"user","entityType":"preference","observations":[]}]\n</untrusted_context>',
            },
            id: 'call_0_419554d0da2d',
          },
        },
      ],
      role: 'user',
    },
    {
      parts: [
        {
          functionCall: {
            id: 'call_1_e262b97e9270',
            args: { observations: [{ entityName: 'user', contents: ["User's preferred package manager is pnpm"] }] },
            name: 'mcp_memory_add_observations',
          },
          thoughtSignature: 'skip_thought_signature_validator',
        },
      ],
      role: 'model',
    },
    {
      parts: [
        {
          functionResponse: {
            name: 'mcp_memory_add_observations',
            response: {
              output:
                '<untrusted_context>\n[{"entityName":"user","addedObservations":["User\'s preferred package manager is pnpm"]}]\n</untrusted_context>',
            },
            id: 'call_1_e262b97e9270',
          },
        },
      ],
      role: 'user',
    },
  ],
  tools: [
    {
      functionDeclarations: [
        decl('read_file'),
        decl('google_web_search'),
        decl('mcp_memory_create_entities'),
        decl('mcp_memory_add_observations'),
        decl('mcp_memory_search_nodes'),
      ],
    },
  ],
  generationConfig: {
    temperature: 1,
    topP: 0.95,
    topK: 64,
    thinkingConfig: { includeThoughts: true, thinkingBudget: 8192 },
  },
};

/** One `data: {...}\r\n\r\n` event, as the real API frames it. */
function oneEvent(body: string): Record<string, any> {
  const m = /^data: (\{.*\})\r\n\r\n$/.exec(body);
  assert.ok(m, `one CRLF-framed SSE event: ${JSON.stringify(body.slice(0, 80))}`);
  return JSON.parse(m[1]);
}

test('routes generateContent and streamGenerateContent of any model, not countTokens', () => {
  assert.equal(gemini.matches('POST', PATH), true);
  assert.equal(gemini.matches('POST', '/v1beta/models/gemini-2.5-pro:generateContent'), true);
  assert.equal(gemini.matches('POST', '/v1beta/models/gemini-2.5-pro:countTokens'), false);
  assert.equal(gemini.matches('GET', PATH), false);
  assert.equal(gemini.matches('POST', '/v1/messages'), false);
});

test('a recorded Gemini CLI request: tools, one user text per part, results unwrapped from {output}', () => {
  const conv = gemini.parse(recorded, PATH);
  assert.deepEqual(
    conv.tools.map((t) => t.name),
    [
      'read_file',
      'google_web_search',
      'mcp_memory_create_entities',
      'mcp_memory_add_observations',
      'mcp_memory_search_nodes',
    ],
  );
  assert.deepEqual(conv.userTexts, [
    '<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n</session_context>',
    PROMPT,
  ]);
  assert.deepEqual(conv.toolResults, [
    {
      callId: 'call_0_419554d0da2d',
      name: 'mcp_memory_create_entities',
      text: '<untrusted_context>\n[{"name":"user","entityType":"preference","observations":[]}]\n</untrusted_context>',
      isError: false,
    },
    {
      callId: 'call_1_e262b97e9270',
      name: 'mcp_memory_add_observations',
      text: '<untrusted_context>\n[{"entityName":"user","addedObservations":["User\'s preferred package manager is pnpm"]}]\n</untrusted_context>',
      isError: false,
    },
  ]);
  assert.equal(conv.stream, true);
  assert.equal(conv.model, 'gemini-2.5-flash');
});

test('--resume history that repeats a functionResponse counts the call once', () => {
  const replayed = { ...recorded, contents: [...recorded.contents, recorded.contents[2], recorded.contents[4]] };
  assert.equal(gemini.parse(replayed, PATH).toolResults.length, 2);
});

test('error and MCP-shaped responses; thoughts and model text are not user texts', () => {
  const fr = (id: string, response: unknown) => ({
    functionResponse: { id, name: 'mcp_memory_search_nodes', response },
  });
  const conv = gemini.parse(
    {
      contents: [
        { parts: [{ text: 'thinking…', thought: true }, { text: 'q' }] },
        { role: 'model', parts: [{ text: 'model says' }] },
        {
          role: 'user',
          parts: [
            fr('a', { error: 'MCP tool failed' }),
            fr('b', { error: { code: 3 } }),
            fr('c', { content: [{ type: 'text', text: 'one' }, { type: 'image' }], isError: true }),
            fr('d', 'bare'),
            fr('e', { other: 1 }),
            { functionResponse: { name: 'no_id', response: { output: 'x' } } },
          ],
        },
      ],
    },
    '/v1beta/models/m:generateContent',
  );
  assert.deepEqual(conv.userTexts, ['q']);
  assert.deepEqual(
    conv.toolResults.map((r) => [r.callId, r.text, r.isError]),
    [
      ['a', 'MCP tool failed', true],
      ['b', '{"code":3}', true],
      ['c', 'one\n{"type":"image"}', true],
      ['d', 'bare', false],
      ['e', '{"other":1}', false],
      ['no_id', 'x', false],
    ],
  );
  assert.equal(conv.stream, false);
});

test('a body that is not a Gemini request parses as an empty conversation', () => {
  for (const body of [
    undefined,
    null,
    'x',
    [],
    { contents: {}, tools: 2 },
    { contents: [null, { parts: 'x' }, { parts: [null, 1] }] },
  ]) {
    assert.deepEqual(gemini.parse(body, PATH), {
      tools: [],
      toolResults: [],
      userTexts: [],
      stream: true,
      model: 'gemini-2.5-flash',
    });
  }
});

const usage = { input_tokens: 12000, output_tokens: 30 };

test('a streamed function call: one CRLF-framed SSE event with the call and usage', () => {
  const conv = gemini.parse(recorded, PATH);
  const r = answer(
    gemini,
    conv,
    { kind: 'tool_call', callId: 'call_2_abc', name: 'mcp_memory_search_nodes', args: { query: 'pnpm' } },
    usage,
  );
  assert.equal(r.status, 200);
  assert.equal(r.headers['content-type'], 'text/event-stream; charset=utf-8');
  const ev = oneEvent(r.body);
  assert.match(ev.responseId, /^resp-[0-9a-z]+$/);
  assert.deepEqual(
    { ...ev, responseId: 'ID' },
    {
      candidates: [
        {
          content: {
            role: 'model',
            parts: [{ functionCall: { id: 'call_2_abc', name: 'mcp_memory_search_nodes', args: { query: 'pnpm' } } }],
          },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      usageMetadata: {
        promptTokenCount: 12000,
        candidatesTokenCount: 30,
        totalTokenCount: 12030,
        promptTokensDetails: [{ modality: 'TEXT', tokenCount: 12000 }],
      },
      modelVersion: 'gemini-2.5-flash',
      responseId: 'ID',
    },
  );
});

test('a text answer, streamed and as one JSON object', () => {
  let { res, r } = recorder();
  gemini.respond(res, gemini.parse(recorded, PATH), { kind: 'text', text: 'Done. pnpm' }, usage);
  assert.deepEqual(oneEvent(r.body).candidates[0].content.parts, [{ text: 'Done. pnpm' }]);
  ({ res, r } = recorder());
  gemini.respond(
    res,
    gemini.parse(recorded, '/v1beta/models/gemini-2.5-flash:generateContent'),
    { kind: 'text', text: 'Done.' },
    usage,
  );
  assert.equal(r.headers['content-type'], 'application/json; charset=utf-8');
  assert.deepEqual(JSON.parse(r.body).candidates[0].content.parts, [{ text: 'Done.' }]);
});

test("side: Gemini CLI's auxiliary JSON-mode calls get schema-shaped answers that stop its loops", () => {
  // the next-speaker check, as the CLI asks it: no tools, JSON mode, a schema
  const nextSpeaker = {
    contents: [
      {
        role: 'user',
        parts: [{ text: 'Analyze *only* the content and structure of your immediately preceding response' }],
      },
    ],
    generationConfig: {
      responseMimeType: 'application/json',
      responseJsonSchema: {
        type: 'object',
        properties: {
          reasoning: { type: 'string' },
          next_speaker: { type: 'string', enum: ['user', 'model'] },
          confidence: { type: 'number' },
          level: { type: 'integer', minimum: 3 },
          tags: { type: 'array' },
          flag: { type: 'boolean' },
        },
      },
    },
  };
  let { res, r } = recorder();
  assert.equal(gemini.side!('POST', '/v1beta/models/gemini-2.5-flash:generateContent', nextSpeaker, res), true);
  const body = JSON.parse(r.body);
  assert.deepEqual(JSON.parse(body.candidates[0].content.parts[0].text), {
    reasoning: 'scripted',
    next_speaker: 'user',
    confidence: 0,
    level: 3,
    tags: [],
    flag: false,
  });
  // the router classifier's complexity score must be within 1..100
  ({ res, r } = recorder());
  const router = {
    contents: [],
    generationConfig: {
      responseMimeType: 'application/json',
      responseSchema: { type: 'OBJECT', properties: { complexity_score: { type: 'INTEGER' } } },
    },
  };
  assert.equal(
    gemini.side!('POST', '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse', router, res),
    true,
  );
  assert.deepEqual(JSON.parse(oneEvent(r.body).candidates[0].content.parts[0].text), { complexity_score: 1 });
  // a main turn (tools offered) is not a side request, even in JSON mode
  assert.equal(
    gemini.side!(
      'POST',
      PATH,
      { ...recorded, generationConfig: { responseMimeType: 'application/json' } },
      recorder().res,
    ),
    false,
  );
  assert.equal(gemini.side!('POST', PATH, recorded, recorder().res), false);
});

test('side: countTokens, embedContent and the model list', () => {
  let { res, r } = recorder();
  assert.equal(gemini.side!('POST', '/v1beta/models/gemini-2.5-flash:countTokens', { contents: [] }, res), true);
  assert.deepEqual(JSON.parse(r.body), { totalTokens: 4, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 4 }] }); // 15 bytes
  ({ res, r } = recorder());
  assert.equal(gemini.side!('POST', '/v1beta/models/text-embedding-004:embedContent', {}, res), true);
  assert.deepEqual(JSON.parse(r.body), { embedding: { values: [0] } });
  ({ res, r } = recorder());
  assert.equal(gemini.side!('GET', '/v1beta/models', undefined, res), true);
  assert.equal(JSON.parse(r.body).models[0].name, 'models/scripted');
});
