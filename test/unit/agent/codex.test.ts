import { test } from 'node:test';
import assert from 'node:assert/strict';
import { codex } from '../../../src/agent/adapters/codex.js';

// `codex exec --json` stdout of Codex 0.169 for a remember prompt against memeval's scripted
// model, recorded (MCP result bodies shortened).
const THREAD = '01a217fc-580e-7f80-9a77-2706d53fc02c';
const ANSWER =
  'Done. {"results":[{"entityName":"user","addedObservations":["User\'s preferred package manager is pnpm"]}]}';
const mcpItem = (id: string, tool: string, status: string, extra: Record<string, unknown> = {}) => ({
  id,
  type: 'mcp_tool_call',
  server: 'memory',
  tool,
  arguments: {},
  result: status === 'completed' ? { content: [{ type: 'text', text: '[]' }] } : null,
  error: null,
  status,
  ...extra,
});
const jsonl = (events: unknown[]) => events.map((e) => JSON.stringify(e)).join('\n') + '\n';
const completed = (input: number, output: number, cached = 0) => ({
  type: 'turn.completed',
  usage: {
    input_tokens: input,
    cached_input_tokens: cached,
    cache_write_input_tokens: 0,
    output_tokens: output,
    reasoning_output_tokens: 0,
  },
});
const recorded = jsonl([
  { type: 'thread.started', thread_id: THREAD },
  {
    type: 'item.completed',
    item: {
      id: 'item_0',
      type: 'error',
      message:
        'Model metadata for `gpt-scripted` not found. Defaulting to fallback metadata; this can degrade performance and cause issues.',
    },
  },
  { type: 'turn.started' },
  { type: 'item.started', item: mcpItem('item_1', 'create_entities', 'in_progress') },
  { type: 'item.completed', item: mcpItem('item_1', 'create_entities', 'completed') },
  { type: 'item.started', item: mcpItem('item_2', 'add_observations', 'in_progress') },
  { type: 'item.completed', item: mcpItem('item_2', 'add_observations', 'completed') },
  { type: 'item.completed', item: { id: 'item_3', type: 'agent_message', text: ANSWER } },
  completed(34689, 128),
]);

test('a recorded remember turn: answer, thread id, memory calls and usage', () => {
  const r = codex.parse(recorded, 0);
  assert.deepEqual(r, {
    finalText: ANSWER,
    conversationId: THREAD,
    usage: { input: 34689, output: 128, cache_read: 0, cache_write: 0, cost_usd: null },
    cumulative: { input: 34689, output: 128, cache_read: 0, cache_write: 0, cost_usd: null },
    toolCalls: [
      { tool: 'create_entities', ok: true },
      { tool: 'add_observations', ok: true },
    ],
    invalid: [],
  });
});

test('after resume, usage is this turn only: the running totals minus the last turn', () => {
  const first = codex.parse(recorded, 0);
  const second = codex.parse(
    jsonl([
      { type: 'thread.started', thread_id: THREAD },
      { type: 'item.completed', item: { id: 'i', type: 'agent_message', text: 'pnpm' } },
      completed(60000, 200, 30000),
    ]),
    0,
    first,
  );
  assert.deepEqual(second.usage, {
    input: 60000 - 34689,
    output: 72,
    cache_read: 30000,
    cache_write: 0,
    cost_usd: null,
  });
  assert.deepEqual(second.cumulative, { input: 60000, output: 200, cache_read: 30000, cache_write: 0, cost_usd: null });
});

test('the last agent message is the answer; failed and other-server calls are told apart', () => {
  const r = codex.parse(
    jsonl([
      { type: 'item.completed', item: { id: 'a', type: 'agent_message', text: 'Let me check.' } },
      {
        type: 'item.completed',
        item: mcpItem('b', 'delete_observations', 'failed', { error: { message: 'no such entity' } }),
      },
      { type: 'item.completed', item: { ...mcpItem('c', 'search', 'completed'), server: 'other' } },
      { type: 'item.completed', item: { id: 'd', type: 'command_execution', command: 'ls', status: 'completed' } },
      { type: 'item.completed', item: { id: 'e', type: 'agent_message', text: 'Forgotten.' } },
      completed(10, 2),
    ]),
    0,
  );
  assert.equal(r.finalText, 'Forgotten.');
  assert.deepEqual(r.toolCalls, [{ tool: 'delete_observations', ok: false }]);
  assert.deepEqual(r.invalid, []);
});

test('a cancelled MCP call and a failed turn are reported', () => {
  const r = codex.parse(
    jsonl([
      {
        type: 'item.completed',
        item: mcpItem('b', 'add_observations', 'failed', { error: { message: 'user cancelled MCP tool call' } }),
      },
      {
        type: 'turn.failed',
        error: { message: 'stream disconnected before completion: stream closed before response.completed' },
      },
    ]),
    1,
  );
  assert.deepEqual(r.toolCalls, [{ tool: 'add_observations', ok: false }]);
  assert.deepEqual(r.invalid, [
    'MCP call cancelled: add_observations',
    'turn failed: stream disconnected before completion: stream closed before response.completed',
  ]);
});

test('fail closed: empty or non-JSON output is no answer', () => {
  for (const stdout of [
    '',
    '\n\n',
    'Reading additional input from stdin...\n',
    'Error: unexpected argument\n{"type":"turn.completed"',
  ]) {
    const r = codex.parse(stdout, 2);
    assert.equal(r.finalText, '');
    assert.deepEqual(r.invalid, ['no turn.completed event (exit 2)']);
  }
});

test('fail closed: the recorded transcript torn anywhere before turn.completed ends is no finished turn', () => {
  const end = recorded.lastIndexOf('}') + 1;
  for (let cut = 0; cut < end; cut += 5) {
    const r = codex.parse(recorded.slice(0, cut), null);
    assert.ok(
      r.invalid.some((i) => i.startsWith('no turn.completed event')),
      `cut at ${cut} parsed as finished`,
    );
    assert.deepEqual(r.usage, { input: 0, output: 0, cache_read: 0, cache_write: 0, cost_usd: null });
  }
  assert.deepEqual(codex.parse(recorded.slice(0, end), 0).invalid, []);
});
