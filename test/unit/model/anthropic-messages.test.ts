import { test } from 'node:test';
import assert from 'node:assert/strict';
import { anthropicMessages } from '../../../src/model/wire/anthropic-messages.js';
import { answer, recorder, sseEvents } from '../../wire-kit.ts';

// Claude Code 2.1.197's third request of a remember prompt (POST /v1/messages?beta=true), recorded
// from the scripted model server and cut down: its 27 built-in tools are two here, long texts
// are shortened, the system prompt is one block.
const PROMPT = 'Remember for later sessions: my preferred package manager is pnpm.';
const recorded = {
  model: 'scripted',
  messages: [
    {
      role: 'user',
      content: [
        {
          type: 'text',
          text: "<system-reminder>\nAs you answer the user's questions, you can use the following context:\n# currentDate\n</system-reminder>\n\n",
        },
        { type: 'text', text: PROMPT },
      ],
    },
    { role: 'system', content: 'Available agent types for the Agent tool:\n- claude: Catch-all for any task' },
    {
      role: 'assistant',
      content: [
        {
          type: 'tool_use',
          id: 'call_0_694cc5d52bf2',
          name: 'mcp__memory__create_entities',
          input: { entities: [{ name: 'user', entityType: 'preference', observations: [] }] },
        },
      ],
    },
    {
      role: 'user',
      content: [
        {
          tool_use_id: 'call_0_694cc5d52bf2',
          type: 'tool_result',
          content: '{"entities":[{"name":"user","entityType":"preference","observations":[]}]}',
        },
      ],
    },
    {
      role: 'assistant',
      content: [
        {
          type: 'tool_use',
          id: 'call_1_c9055bde4c69',
          name: 'mcp__memory__add_observations',
          input: { observations: [{ entityName: 'user', contents: ["User's preferred package manager is pnpm"] }] },
        },
      ],
    },
    {
      role: 'user',
      content: [
        {
          tool_use_id: 'call_1_c9055bde4c69',
          type: 'tool_result',
          content:
            '{"results":[{"entityName":"user","addedObservations":["User\'s preferred package manager is pnpm"]}]}',
          cache_control: { type: 'ephemeral' },
        },
      ],
    },
  ],
  system: [
    {
      type: 'text',
      text: "You are a Claude agent, built on Anthropic's Claude Agent SDK.",
      cache_control: { type: 'ephemeral' },
    },
  ],
  tools: [
    {
      name: 'Bash',
      description: 'Executes a given bash command',
      input_schema: { type: 'object', properties: { command: { type: 'string' } } },
    },
    {
      name: 'Write',
      description: 'Writes a file',
      input_schema: { type: 'object', properties: { file_path: { type: 'string' } } },
    },
    {
      name: 'mcp__memory__add_observations',
      description: 'Add new observations',
      input_schema: { type: 'object', properties: {} },
    },
    {
      name: 'mcp__memory__create_entities',
      description: 'Create multiple new entities',
      input_schema: { type: 'object', properties: {} },
    },
    {
      name: 'mcp__memory__search_nodes',
      description: 'Search for nodes in the knowledge graph based on a query',
      input_schema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
    },
  ],
  metadata: {
    user_id: '{"device_id":"1bec9786","account_uuid":"","session_id":"43b2e83a-327d-4dbd-83d9-f773e090fc87"}',
  },
  max_tokens: 32000,
  thinking: { type: 'adaptive' },
  context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
  output_config: { effort: 'high' },
  stream: true,
};

test('routes the messages endpoint with its beta query, and nothing else', () => {
  assert.equal(anthropicMessages.matches('POST', '/v1/messages?beta=true'), true);
  assert.equal(anthropicMessages.matches('POST', '/v1/messages/'), true);
  assert.equal(anthropicMessages.matches('GET', '/v1/messages'), false);
  assert.equal(anthropicMessages.matches('POST', '/v1/messages/count_tokens?beta=true'), false);
  assert.equal(anthropicMessages.matches('POST', '/v1/chat/completions'), false);
});

test('a recorded Claude Code request: offered tools, user texts, and tool results named by their tool_use', () => {
  const conv = anthropicMessages.parse(recorded, '/v1/messages?beta=true');
  assert.deepEqual(
    conv.tools.map((t) => t.name),
    ['Bash', 'Write', 'mcp__memory__add_observations', 'mcp__memory__create_entities', 'mcp__memory__search_nodes'],
  );
  assert.equal(conv.userTexts.length, 2);
  assert.equal(conv.userTexts[1], PROMPT);
  // the role:"system" message Claude Code puts in the history is not the user's
  assert.ok(!conv.userTexts.some((t) => t.startsWith('Available agent types')));
  assert.deepEqual(conv.toolResults, [
    {
      callId: 'call_0_694cc5d52bf2',
      name: 'mcp__memory__create_entities',
      text: '{"entities":[{"name":"user","entityType":"preference","observations":[]}]}',
      isError: false,
    },
    {
      callId: 'call_1_c9055bde4c69',
      name: 'mcp__memory__add_observations',
      text: '{"results":[{"entityName":"user","addedObservations":["User\'s preferred package manager is pnpm"]}]}',
      isError: false,
    },
  ]);
  assert.equal(conv.stream, true);
  assert.equal(conv.model, 'scripted');
});

test('an MCP error comes back flagged is_error with array content, and is read as an error', () => {
  const conv = anthropicMessages.parse(
    {
      model: 'claude-x',
      messages: [
        { role: 'user', content: 'forget it' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'ok' },
            { type: 'tool_use', id: 'toolu_1', name: 'mcp__memory__delete_observations', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_1',
              is_error: true,
              content: [{ type: 'text', text: 'MCP error -32602: bad args' }, { type: 'image' }],
            },
          ],
        },
      ],
    },
    '/v1/messages',
  );
  assert.deepEqual(conv.userTexts, ['forget it']);
  assert.deepEqual(conv.toolResults, [
    {
      callId: 'toolu_1',
      name: 'mcp__memory__delete_observations',
      text: 'MCP error -32602: bad args\n[image]',
      isError: true,
    },
  ]);
  assert.equal(conv.stream, false);
});

test('a body that is not a messages request parses as an empty conversation, not a crash', () => {
  for (const body of [
    undefined,
    null,
    'text',
    [],
    { messages: 'x', tools: {} },
    { messages: [null, 3, { role: 'user', content: 7 }] },
  ]) {
    const conv = anthropicMessages.parse(body, '/v1/messages');
    assert.deepEqual(conv, { tools: [], toolResults: [], userTexts: [], stream: false, model: 'scripted' });
  }
});

const usage = { input_tokens: 20133, output_tokens: 37 };

test('a streamed tool call: the exact SSE event sequence Claude Code accumulates', () => {
  const conv = anthropicMessages.parse(recorded, '/v1/messages?beta=true');
  const r = answer(
    anthropicMessages,
    conv,
    { kind: 'tool_call', callId: 'call_2_abc', name: 'mcp__memory__search_nodes', args: { query: 'package manager' } },
    usage,
  );
  assert.equal(r.status, 200);
  assert.equal(r.headers['content-type'], 'text/event-stream; charset=utf-8');
  assert.match(String(r.headers['request-id']), /^req_[0-9a-f]{24}$/);
  const ev = sseEvents(r.body, 'a-z_');
  assert.deepEqual(
    ev.map((e) => e.event),
    [
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ],
  );
  for (const e of ev) assert.equal(e.data.type, e.event);
  const msg = ev[0].data.message;
  assert.match(msg.id, /^msg_[0-9a-f]{24}$/);
  assert.deepEqual(
    { ...msg, id: 'ID' },
    {
      id: 'ID',
      type: 'message',
      role: 'assistant',
      model: 'scripted',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 20133, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 },
    },
  );
  assert.deepEqual(ev[1].data, {
    type: 'content_block_start',
    index: 0,
    content_block: { type: 'tool_use', id: 'call_2_abc', name: 'mcp__memory__search_nodes', input: {} },
  });
  assert.deepEqual(ev[2].data, {
    type: 'content_block_delta',
    index: 0,
    delta: { type: 'input_json_delta', partial_json: '{"query":"package manager"}' },
  });
  assert.deepEqual(ev[3].data, { type: 'content_block_stop', index: 0 });
  assert.deepEqual(ev[4].data, {
    type: 'message_delta',
    delta: { stop_reason: 'tool_use', stop_sequence: null },
    usage: { output_tokens: 37 },
  });
});

test('a streamed text answer ends the turn with end_turn', () => {
  const conv = anthropicMessages.parse(recorded, '/v1/messages?beta=true');
  const r = answer(anthropicMessages, conv, { kind: 'text', text: 'Done. pnpm' }, usage);
  const ev = sseEvents(r.body, 'a-z_');
  assert.deepEqual(ev[1].data.content_block, { type: 'text', text: '' });
  assert.deepEqual(ev[2].data.delta, { type: 'text_delta', text: 'Done. pnpm' });
  assert.equal(ev[4].data.delta.stop_reason, 'end_turn');
  assert.equal(ev.at(-1)?.event, 'message_stop');
});

test('a non-streamed request gets one message object', () => {
  const conv = anthropicMessages.parse({ ...recorded, stream: false }, '/v1/messages');
  const r = answer(
    anthropicMessages,
    conv,
    { kind: 'tool_call', callId: 'c1', name: 'mcp__memory__search_nodes', args: { query: 'q' } },
    usage,
  );
  assert.equal(r.headers['content-type'], 'application/json; charset=utf-8');
  assert.equal(r.headers['content-length'], Buffer.byteLength(r.body));
  const body = JSON.parse(r.body);
  assert.deepEqual(
    { ...body, id: 'ID' },
    {
      id: 'ID',
      type: 'message',
      role: 'assistant',
      model: 'scripted',
      content: [{ type: 'tool_use', id: 'c1', name: 'mcp__memory__search_nodes', input: { query: 'q' } }],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 20133, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 37 },
    },
  );
});

test('side requests: the start-up HEAD probe, token counting and the model list; other paths fall through', () => {
  let { res, r } = recorder();
  assert.equal(anthropicMessages.side!('HEAD', '/', undefined, res), true);
  assert.equal(r.status, 200);
  ({ res, r } = recorder());
  assert.equal(
    anthropicMessages.side!(
      'POST',
      '/v1/messages/count_tokens?beta=true',
      { messages: [{ role: 'user', content: 'x'.repeat(100) }] },
      res,
    ),
    true,
  );
  assert.deepEqual(JSON.parse(r.body), { input_tokens: 36 }); // 143 bytes of JSON / 4, rounded up
  ({ res, r } = recorder());
  assert.equal(anthropicMessages.side!('GET', '/v1/models?limit=1000', undefined, res), true);
  assert.equal(JSON.parse(r.body).data[0].id, 'claude-scripted');
  ({ res, r } = recorder());
  assert.equal(anthropicMessages.side!('GET', '/v1/models/claude-x%2Fy', undefined, res), true);
  assert.equal(JSON.parse(r.body).id, 'claude-x/y');
  ({ res, r } = recorder());
  assert.equal(anthropicMessages.side!('POST', '/v1/messages?beta=true', recorded, res), false);
  assert.equal(r.status, 0, 'nothing written for a request the adapter does not answer');
});
