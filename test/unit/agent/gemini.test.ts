import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gemini } from '../../../src/agent/adapters/gemini.js';

// `gemini -p -o stream-json` stdout of Gemini CLI 0.61 for a remember prompt against memeval's
// scripted model, recorded (tool outputs shortened).
const SID = '859bdb18-29f4-4630-bbae-e2b63b552857';
const ANSWER =
  'Done. <untrusted_context>\n[{"entityName":"user","addedObservations":["User\'s preferred package manager is pnpm"]}]\n</untrusted_context>';
const ts = '2026-11-26T13:12:57.250Z';
const use = (name: string, call: string) => ({
  type: 'tool_use',
  timestamp: ts,
  tool_name: name,
  tool_id: `${name}__${call}`,
  parameters: {},
});
const res = (name: string, call: string, status: string) => ({
  type: 'tool_result',
  timestamp: ts,
  tool_id: `${name}__${call}`,
  status,
  output: '[]',
});
const result = (over: Record<string, unknown> = {}) => ({
  type: 'result',
  timestamp: ts,
  status: 'success',
  stats: {
    total_tokens: 36475,
    input_tokens: 36332,
    output_tokens: 143,
    cached: 0,
    input: 36332,
    duration_ms: 1245,
    tool_calls: 2,
  },
  ...over,
});
const jsonl = (events: unknown[]) => events.map((e) => JSON.stringify(e)).join('\n') + '\n';
const recorded = jsonl([
  { type: 'init', timestamp: ts, session_id: SID, model: 'gemini-2.5-flash' },
  {
    type: 'message',
    timestamp: ts,
    role: 'user',
    content: 'Remember for later sessions: my preferred package manager is pnpm.',
  },
  use('mcp_memory_create_entities', 'call_0_419554d0da2d'),
  res('mcp_memory_create_entities', 'call_0_419554d0da2d', 'success'),
  use('mcp_memory_add_observations', 'call_1_e262b97e9270'),
  res('mcp_memory_add_observations', 'call_1_e262b97e9270', 'success'),
  { type: 'message', timestamp: ts, role: 'assistant', content: ANSWER, delta: true },
  result(),
]);

test('a recorded remember turn: answer, session id, memory calls and usage', () => {
  assert.deepEqual(gemini.parse(recorded, 0), {
    finalText: ANSWER,
    conversationId: SID,
    usage: { input: 36332, output: 143, cache_read: 0, cache_write: 0, cost_usd: null },
    toolCalls: [
      { tool: 'create_entities', ok: true },
      { tool: 'add_observations', ok: true },
    ],
    invalid: [],
  });
});

test('streamed deltas are joined; only the text after the last tool call is the answer', () => {
  const r = gemini.parse(
    jsonl([
      { type: 'message', role: 'assistant', content: 'I will search. ', delta: true },
      use('mcp_memory_search_nodes', 'c1'),
      res('mcp_memory_search_nodes', 'c1', 'error'),
      use('read_file', 'c2'),
      res('read_file', 'c2', 'success'),
      { type: 'message', role: 'assistant', content: 'You prefer ', delta: true },
      { type: 'message', role: 'assistant', content: 'pnpm.', delta: true },
      { type: 'message', role: 'user', content: 'not the answer' },
      result({ stats: { input_tokens: 5, output_tokens: 6, cached: 4 } }),
    ]),
    0,
  );
  assert.equal(r.finalText, 'You prefer pnpm.');
  assert.deepEqual(r.toolCalls, [{ tool: 'search_nodes', ok: false }]);
  assert.deepEqual(r.usage, { input: 5, output: 6, cache_read: 4, cache_write: 0, cost_usd: null });
});

test('an API failure: the error event and the result status are both reported', () => {
  const r = gemini.parse(
    jsonl([
      { type: 'init', session_id: SID },
      { type: 'error', severity: 'error', message: '[API Error: 400 API key not valid]' },
      result({ status: 'error', error: { type: 'FatalAuthenticationError', message: 'API key not valid' } }),
    ]),
    144,
  );
  assert.deepEqual(r.invalid, ['agent error: [API Error: 400 API key not valid]', 'agent error: API key not valid']);
  assert.deepEqual(gemini.parse(jsonl([result({ status: 'cancelled', stats: undefined })]), 130).invalid, [
    'agent error: cancelled',
  ]);
});

test('fail closed: empty or non-JSON output is no answer', () => {
  for (const stdout of [
    '',
    '\n',
    'YOLO mode is enabled. All tool calls will be automatically approved.\n',
    '{"type":"result","status":"success"',
  ]) {
    const r = gemini.parse(stdout, 0);
    assert.equal(r.finalText, '');
    assert.deepEqual(r.invalid, ['no result event (exit 0)']);
  }
});

test('fail closed: the recorded transcript torn anywhere before its result line ends is no finished turn', () => {
  const end = recorded.lastIndexOf('}') + 1;
  for (let cut = 0; cut < end; cut += 5) {
    const r = gemini.parse(recorded.slice(0, cut), null);
    assert.deepEqual(r.invalid, ['no result event (exit null)'], `cut at ${cut}`);
  }
  assert.deepEqual(gemini.parse(recorded.slice(0, end), 0).invalid, []);
});
