import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openaiResponses } from '../../../src/model/wire/openai-responses.js';
import { answer, recorder, sseEvents } from '../../wire-kit.ts';

// Codex 0.169's third request of a remember prompt (POST /v1/responses), recorded from the
// scripted model server and cut down: fewer built-in tools, shortened instructions, no
// client_metadata. MCP tools come grouped in a namespace; results carry a "Wall time" prefix.
const PROMPT = 'Remember for later sessions: my preferred package manager is pnpm.';
const recorded = {
  model: 'gpt-scripted',
  stream: true,
  input: [
    {
      type: 'message',
      id: 'msg_6147fce6',
      role: 'developer',
      content: [{ type: 'input_text', text: 'You are a coding agent running in the Codex CLI' }],
    },
    {
      type: 'message',
      id: 'msg_01a2',
      role: 'user',
      content: [
        { type: 'input_text', text: '<environment_context>\n  <cwd>/tmp/project</cwd>\n</environment_context>' },
      ],
    },
    { type: 'message', id: 'msg_01a3', role: 'user', content: [{ type: 'input_text', text: PROMPT }] },
    {
      type: 'function_call',
      status: 'completed',
      id: 'fc_1b2c31edc91a9886a53484c7',
      name: 'create_entities',
      namespace: 'mcp__memory',
      arguments: '{"entities":[{"name":"user","entityType":"preference","observations":[]}]}',
      call_id: 'call_0_92d7394d5580',
    },
    {
      type: 'function_call_output',
      id: 'fco_01a217fc',
      call_id: 'call_0_92d7394d5580',
      output:
        'Wall time: 0.0155 seconds\nOutput:\n{"entities":[{"name":"user","entityType":"preference","observations":[]}]}',
    },
    {
      type: 'function_call',
      status: 'completed',
      id: 'fc_77f9b9c1230d276d837d5971',
      name: 'add_observations',
      namespace: 'mcp__memory',
      arguments: '{"observations":[{"entityName":"user","contents":["User\'s preferred package manager is pnpm"]}]}',
      call_id: 'call_1_c51121bd3f0a',
    },
    {
      type: 'function_call_output',
      id: 'fco_01a217fd',
      call_id: 'call_1_c51121bd3f0a',
      output:
        'Wall time: 0.0273 seconds\nOutput:\n{"results":[{"entityName":"user","addedObservations":["User\'s preferred package manager is pnpm"]}]}',
    },
  ],
  tools: [
    {
      type: 'function',
      name: 'exec_command',
      description: 'Runs a command in a PTY',
      strict: false,
      parameters: { type: 'object', properties: { cmd: { type: 'string' } } },
    },
    {
      type: 'namespace',
      name: 'multi_agent_v1',
      description: 'Agents',
      tools: [{ type: 'function', name: 'spawn_agent', parameters: { type: 'object' } }],
    },
    {
      type: 'namespace',
      name: 'mcp__memory',
      description: 'Tools in the mcp__memory namespace.',
      tools: [
        { type: 'function', name: 'add_observations', strict: false, parameters: { type: 'object', properties: {} } },
        { type: 'function', name: 'create_entities', strict: false, parameters: { type: 'object', properties: {} } },
        {
          type: 'function',
          name: 'search_nodes',
          strict: false,
          parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
        },
      ],
    },
    { type: 'web_search', external_web_access: false },
  ],
  tool_choice: 'auto',
  parallel_tool_calls: true,
  reasoning: { summary: 'auto' },
  store: false,
  include: ['reasoning.encrypted_content'],
  prompt_cache_key: '01a217fc-580e-7f80-9a77-2706d53fc02c',
};

test('routes POST .../responses only', () => {
  assert.equal(openaiResponses.matches('POST', '/v1/responses'), true);
  assert.equal(openaiResponses.matches('POST', '/v1/responses/'), true);
  assert.equal(openaiResponses.matches('GET', '/v1/responses'), false);
  assert.equal(openaiResponses.matches('POST', '/v1/chat/completions'), false);
});

test('a recorded Codex request: namespaced tools offered flat, results named and stripped of the Wall time prefix', () => {
  const conv = openaiResponses.parse(recorded, '/v1/responses');
  assert.deepEqual(
    conv.tools.map((t) => t.name),
    [
      'exec_command',
      'multi_agent_v1__spawn_agent',
      'mcp__memory__add_observations',
      'mcp__memory__create_entities',
      'mcp__memory__search_nodes',
      'web_search',
    ],
  );
  // developer messages are not the user's
  assert.deepEqual(conv.userTexts, [
    '<environment_context>\n  <cwd>/tmp/project</cwd>\n</environment_context>',
    PROMPT,
  ]);
  assert.deepEqual(conv.toolResults, [
    {
      callId: 'call_0_92d7394d5580',
      name: 'mcp__memory__create_entities',
      text: '{"entities":[{"name":"user","entityType":"preference","observations":[]}]}',
      isError: false,
    },
    {
      callId: 'call_1_c51121bd3f0a',
      name: 'mcp__memory__add_observations',
      text: '{"results":[{"entityName":"user","addedObservations":["User\'s preferred package manager is pnpm"]}]}',
      isError: false,
    },
  ]);
  assert.equal(conv.stream, true);
  assert.equal(conv.model, 'gpt-scripted');
});

test('output shapes: content parts (MCP errors), {content, success:false}, and a string input', () => {
  const conv = openaiResponses.parse(
    {
      input: [
        { role: 'user', content: 'forget my employer' },
        { type: 'function_call', call_id: 'c1', name: 'mcp__memory__delete_observations' },
        {
          type: 'function_call_output',
          call_id: 'c1',
          output: [{ type: 'input_text', text: 'Wall time: 0.01 seconds\nOutput:\nMCP error -32602: no such entity' }],
        },
        { type: 'function_call_output', call_id: 'c2', output: { content: 'refused', success: false } },
        {
          type: 'custom_tool_call_output',
          call_id: 'c3',
          output: { content: [{ type: 'output_text', text: 'ok' }], success: true },
        },
      ],
    },
    '/v1/responses',
  );
  assert.deepEqual(conv.userTexts, ['forget my employer']);
  assert.deepEqual(conv.toolResults, [
    // Codex puts no error flag on the wire for an MCP error: it reads as a plain result
    {
      callId: 'c1',
      name: 'mcp__memory__delete_observations',
      text: 'MCP error -32602: no such entity',
      isError: false,
    },
    { callId: 'c2', text: 'refused', isError: true },
    { callId: 'c3', text: 'ok', isError: false },
  ]);
  assert.equal(conv.model, 'scripted');
  assert.deepEqual(openaiResponses.parse({ input: 'hello' }, '/v1/responses').userTexts, ['hello']);
});

test('a body that is not a responses request parses as an empty conversation', () => {
  for (const body of [
    undefined,
    null,
    42,
    [],
    { input: 7, tools: 'x' },
    { input: [null, 'x', { type: 'reasoning' }] },
  ]) {
    assert.deepEqual(openaiResponses.parse(body, '/v1/responses'), {
      tools: [],
      toolResults: [],
      userTexts: [],
      stream: false,
      model: 'scripted',
    });
  }
});

const usage = { input_tokens: 11652, output_tokens: 20 };

test('a streamed tool call for a namespaced tool: the exact event sequence, the call split back into namespace and name', () => {
  const conv = openaiResponses.parse(recorded, '/v1/responses');
  const r = answer(
    openaiResponses,
    conv,
    { kind: 'tool_call', callId: 'call_2_abc', name: 'mcp__memory__search_nodes', args: { query: 'pnpm' } },
    usage,
  );
  assert.equal(r.status, 200);
  assert.equal(r.headers['content-type'], 'text/event-stream; charset=utf-8');
  const ev = sseEvents(r.body, 'a-z_.');
  assert.deepEqual(
    ev.map((e) => e.event),
    [
      'response.created',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ],
  );
  ev.forEach((e, i) => {
    assert.equal(e.data.type, e.event);
    assert.equal(e.data.sequence_number, i);
  });
  const item = ev[4].data.item;
  assert.match(item.id, /^fc_[0-9a-f]{24}$/);
  assert.deepEqual(
    { ...item, id: 'ID' },
    {
      type: 'function_call',
      id: 'ID',
      call_id: 'call_2_abc',
      namespace: 'mcp__memory',
      name: 'search_nodes',
      arguments: '{"query":"pnpm"}',
      status: 'completed',
    },
  );
  assert.deepEqual(ev[1].data.item, { ...item, arguments: '', status: 'in_progress' });
  assert.equal(ev[2].data.delta, '{"query":"pnpm"}');
  assert.equal(ev[2].data.item_id, item.id);
  assert.equal(ev[3].data.arguments, '{"query":"pnpm"}');
  const done = ev[5].data.response;
  assert.equal(done.status, 'completed');
  assert.equal(done.id, ev[0].data.response.id);
  assert.deepEqual(done.output, [item]);
  assert.deepEqual(done.usage, {
    input_tokens: 11652,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 20,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 11672,
  });
  assert.deepEqual(ev[0].data.response.output, []);
  assert.equal(ev[0].data.response.status, 'in_progress');
});

test('a tool offered flat (no namespace) is called back flat', () => {
  const conv = openaiResponses.parse(
    { stream: false, tools: [{ type: 'function', name: 'mcp__memory__search_nodes' }] },
    '/v1/responses',
  );
  const r = answer(
    openaiResponses,
    conv,
    { kind: 'tool_call', callId: 'c9', name: 'mcp__memory__search_nodes', args: {} },
    usage,
  );
  const body = JSON.parse(r.body);
  assert.equal(body.object, 'response');
  assert.equal(body.output[0].name, 'mcp__memory__search_nodes');
  assert.equal('namespace' in body.output[0], false);
});

test('a streamed text answer: content part events carry the text, response.completed ends the stream', () => {
  const conv = openaiResponses.parse(recorded, '/v1/responses');
  const r = answer(openaiResponses, conv, { kind: 'text', text: 'Done. pnpm' }, usage);
  const ev = sseEvents(r.body, 'a-z_.');
  assert.deepEqual(
    ev.map((e) => e.event),
    [
      'response.created',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ],
  );
  assert.equal(ev[3].data.delta, 'Done. pnpm');
  assert.equal(ev[4].data.text, 'Done. pnpm');
  assert.deepEqual(ev[6].data.item.content, [{ type: 'output_text', text: 'Done. pnpm', annotations: [] }]);
  assert.equal(ev[6].data.item.role, 'assistant');
});

test('side: the model catalogue Codex asks for is empty in both shapes', () => {
  const { res, r } = recorder();
  assert.equal(openaiResponses.side!('GET', '/v1/models?client_version=0.169.0', undefined, res), true);
  assert.deepEqual(JSON.parse(r.body), { object: 'list', data: [], models: [] });
  assert.equal(openaiResponses.side!('POST', '/v1/responses', recorded, recorder().res), false);
});
