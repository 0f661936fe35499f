import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openaiChat } from '../../../src/model/wire/openai-chat.js';
import { answer, recorder } from '../../wire-kit.ts';

// Qwen Code 0.15.10's third request of a remember prompt (POST /v1/chat/completions), recorded
// from the scripted model server and cut down: fewer built-in tools, shortened system prompt.
// MCP results come back as tool messages with text parts.
const PROMPT = 'Remember for later sessions: my preferred package manager is pnpm.';
const fn = (name: string) => ({
  type: 'function',
  function: { name, description: name, parameters: { type: 'object', properties: {} } },
});
const recorded = {
  model: 'scripted',
  messages: [
    { role: 'system', content: 'You are Qwen Code, an interactive CLI agent developed by Alibaba Group' },
    {
      role: 'user',
      content: [{ type: 'text', text: 'This is the Qwen Code. We are setting up the context for our chat.' }],
    },
    { role: 'assistant', content: 'Got it. Thanks for the context!' },
    { role: 'user', content: [{ type: 'text', text: PROMPT }] },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'call_0_66d62b6140f6',
          type: 'function',
          function: {
            name: 'mcp__memory__create_entities',
            arguments: '{"entities":[{"name":"user","entityType":"preference","observations":[]}]}',
          },
        },
      ],
    },
    {
      role: 'tool',
      tool_call_id: 'call_0_66d62b6140f6',
      content: [
        {
          type: 'text',
          text: '[\n  {\n    "name": "user",\n    "entityType": "preference",\n    "observations": []\n  }\n]',
        },
      ],
    },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'call_1_f4eb78e5a44e',
          type: 'function',
          function: {
            name: 'mcp__memory__add_observations',
            arguments:
              '{"observations":[{"entityName":"user","contents":["User\'s preferred package manager is pnpm"]}]}',
          },
        },
      ],
    },
    {
      role: 'tool',
      tool_call_id: 'call_1_f4eb78e5a44e',
      content: [
        {
          type: 'text',
          text: '[\n  {\n    "entityName": "user",\n    "addedObservations": ["User\'s preferred package manager is pnpm"]\n  }\n]',
        },
      ],
    },
  ],
  tools: [
    fn('mcp__memory__create_entities'),
    fn('mcp__memory__add_observations'),
    fn('mcp__memory__search_nodes'),
    fn('read_file'),
    fn('web_fetch'),
  ],
  stream: true,
  stream_options: { include_usage: true },
  max_tokens: 8000,
};

/** `data: {...}\n\n` chunks ending with `data: [DONE]`, checked to be nothing else. */
function chunks(body: string): Record<string, any>[] {
  assert.match(body, /^(data: \{.*\}\n\n)+data: \[DONE\]\n\n$/);
  return [...body.matchAll(/data: (\{.*\})\n\n/g)].map((m) => JSON.parse(m[1]));
}

test('routes POST .../chat/completions only', () => {
  assert.equal(openaiChat.matches('POST', '/v1/chat/completions'), true);
  assert.equal(openaiChat.matches('POST', '/api/v1/chat/completions?x=1'), true);
  assert.equal(openaiChat.matches('GET', '/v1/chat/completions'), false);
  assert.equal(openaiChat.matches('POST', '/v1/responses'), false);
});

test('a recorded Qwen Code request: tools, user texts, tool results named by their tool_calls', () => {
  const conv = openaiChat.parse(recorded, '/v1/chat/completions');
  assert.deepEqual(
    conv.tools.map((t) => t.name),
    [
      'mcp__memory__create_entities',
      'mcp__memory__add_observations',
      'mcp__memory__search_nodes',
      'read_file',
      'web_fetch',
    ],
  );
  assert.deepEqual(conv.userTexts, ['This is the Qwen Code. We are setting up the context for our chat.', PROMPT]);
  assert.deepEqual(
    conv.toolResults.map((r) => [r.callId, r.name, r.isError]),
    [
      ['call_0_66d62b6140f6', 'mcp__memory__create_entities', false],
      ['call_1_f4eb78e5a44e', 'mcp__memory__add_observations', false],
    ],
  );
  assert.equal(
    conv.toolResults[0].text,
    '[\n  {\n    "name": "user",\n    "entityType": "preference",\n    "observations": []\n  }\n]',
  );
  assert.equal(conv.stream, true);
  assert.equal(conv.model, 'scripted');
});

test('tool errors have no flag on this wire: the texts Qwen Code and opencode send for them read as errors', () => {
  const tool = (content: string) => ({ role: 'tool', tool_call_id: 'c1', content });
  const errors = [
    "MCP tool 'mcp__memory__delete_observations' reported tool error for function call: no such entity",
    'Error: MCP error -32602: Invalid arguments',
    'MCP error -32603: boom',
    '  Tool execution failed: timeout',
    'Failed to call tool',
    '{"isError":true,"content":[]}',
    '{"error":"nope"}',
  ];
  const fine = ['{"entities":[]}', 'No errors found', 'The user prefers Error Prone', '{"isError":false}', '{not json'];
  const conv = openaiChat.parse({ messages: [...errors, ...fine].map(tool) }, '/v1/chat/completions');
  assert.deepEqual(
    conv.toolResults.map((r) => r.isError),
    [...errors.map(() => true), ...fine.map(() => false)],
  );
});

test('legacy functions / function messages, and a tool message naming itself', () => {
  const conv = openaiChat.parse(
    {
      functions: [{ name: 'mcp__memory__search_nodes' }, { nope: 1 }],
      messages: [
        { role: 'function', name: 'mcp__memory__search_nodes', content: '{"entities":[]}' },
        { role: 'tool', tool_call_id: 'unknown', name: 'memory_search_nodes', content: 'ok' },
      ],
    },
    '/v1/chat/completions',
  );
  assert.deepEqual(conv.tools, [{ name: 'mcp__memory__search_nodes' }]);
  assert.deepEqual(conv.toolResults, [
    { callId: 'mcp__memory__search_nodes', name: 'mcp__memory__search_nodes', text: '{"entities":[]}', isError: false },
    { callId: 'unknown', name: 'memory_search_nodes', text: 'ok', isError: false },
  ]);
  assert.equal(conv.stream, false);
});

test('a body that is not a chat request parses as an empty conversation', () => {
  for (const body of [
    undefined,
    null,
    'x',
    [],
    { messages: {}, tools: 1 },
    { messages: [null, 1, { role: 'assistant', tool_calls: [null, { id: 5 }] }] },
  ]) {
    assert.deepEqual(openaiChat.parse(body, '/v1/chat/completions'), {
      tools: [],
      toolResults: [],
      userTexts: [],
      stream: false,
      model: '',
    });
  }
});

const usage = { input_tokens: 15275, output_tokens: 49 };
const usageObj = {
  prompt_tokens: 15275,
  completion_tokens: 49,
  total_tokens: 15324,
  prompt_tokens_details: { cached_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 0 },
};

test('a streamed tool call: role chunk, name+id, arguments in two pieces, finish, usage, [DONE]', () => {
  const conv = openaiChat.parse(recorded, '/v1/chat/completions');
  const r = answer(
    openaiChat,
    conv,
    { kind: 'tool_call', callId: 'call_2_abc', name: 'mcp__memory__search_nodes', args: { query: 'package manager' } },
    usage,
  );
  assert.equal(r.status, 200);
  assert.equal(r.headers['content-type'], 'text/event-stream; charset=utf-8');
  const c = chunks(r.body);
  const id = c[0].id;
  assert.match(id, /^chatcmpl-[0-9a-f]{24}$/);
  for (const x of c) {
    assert.equal(x.id, id);
    assert.equal(x.object, 'chat.completion.chunk');
    assert.equal(x.model, 'scripted');
  }
  const choices = c.map((x) => x.choices);
  assert.deepEqual(choices, [
    [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
    [
      {
        index: 0,
        delta: {
          tool_calls: [
            {
              index: 0,
              id: 'call_2_abc',
              type: 'function',
              function: { name: 'mcp__memory__search_nodes', arguments: '' },
            },
          ],
        },
        logprobs: null,
        finish_reason: null,
      },
    ],
    [
      {
        index: 0,
        delta: { tool_calls: [{ index: 0, function: { arguments: '{"query":"pac' } }] },
        logprobs: null,
        finish_reason: null,
      },
    ],
    [
      {
        index: 0,
        delta: { tool_calls: [{ index: 0, function: { arguments: 'kage manager"}' } }] },
        logprobs: null,
        finish_reason: null,
      },
    ],
    [{ index: 0, delta: {}, logprobs: null, finish_reason: 'tool_calls' }],
    [],
  ]);
  assert.deepEqual(c.at(-1)?.usage, usageObj);
  // what a client accumulates from the pieces is the arguments object
  const args = c
    .flatMap((x) => x.choices)
    .map((ch) => ch.delta.tool_calls?.[0]?.function?.arguments ?? '')
    .join('');
  assert.deepEqual(JSON.parse(args), { query: 'package manager' });
});

test('a streamed text answer ends with finish_reason stop', () => {
  const conv = openaiChat.parse({ ...recorded, model: '' }, '/v1/chat/completions');
  const r = answer(openaiChat, conv, { kind: 'text', text: 'Done. pnpm' }, usage);
  const c = chunks(r.body);
  assert.deepEqual(
    c.map((x) => x.choices[0]?.delta),
    [{ role: 'assistant', content: '' }, { content: 'Done. pnpm' }, {}, undefined],
  );
  assert.equal(c[2].choices[0].finish_reason, 'stop');
  assert.equal(c[0].model, 'scripted', 'a request without a model is answered as the scripted one');
});

test('a non-streamed request gets one chat.completion', () => {
  const conv = openaiChat.parse({ ...recorded, stream: false }, '/v1/chat/completions');
  let { res, r } = recorder();
  openaiChat.respond(
    res,
    conv,
    { kind: 'tool_call', callId: 'c1', name: 'mcp__memory__search_nodes', args: { query: 'q' } },
    usage,
  );
  let body = JSON.parse(r.body);
  assert.equal(body.object, 'chat.completion');
  assert.deepEqual(body.choices, [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'mcp__memory__search_nodes', arguments: '{"query":"q"}' } },
        ],
      },
      logprobs: null,
      finish_reason: 'tool_calls',
    },
  ]);
  assert.deepEqual(body.usage, usageObj);
  ({ res, r } = recorder());
  openaiChat.respond(res, conv, { kind: 'text', text: 'hi' }, usage);
  body = JSON.parse(r.body);
  assert.deepEqual(body.choices[0].message, { role: 'assistant', content: 'hi' });
  assert.equal(body.choices[0].finish_reason, 'stop');
});

test('side: model list and one model', () => {
  let { res, r } = recorder();
  assert.equal(openaiChat.side!('GET', '/v1/models', undefined, res), true);
  assert.deepEqual(
    JSON.parse(r.body).data.map((m: { id: string }) => m.id),
    ['scripted'],
  );
  ({ res, r } = recorder());
  assert.equal(openaiChat.side!('GET', '/v1/models/qwen3-coder', undefined, res), true);
  assert.equal(JSON.parse(r.body).id, 'qwen3-coder');
  assert.equal(openaiChat.side!('POST', '/v1/chat/completions', recorded, recorder().res), false);
});
