import { test } from 'node:test';
import assert from 'node:assert/strict';
import { qwen } from '../../../src/agent/adapters/qwen.js';

// `qwen -p -o stream-json` stdout of Qwen Code 0.15.10 for a remember prompt against memeval's
// scripted model, recorded (lists and outputs shortened). The format copies Claude Code's, but
// usage is a running total over the session, also across --resume.
const SID = 'e1009269-1e8c-49f7-b7d4-3c9f6224355c';
const ANSWER = 'Done. [{"entityName":"user","addedObservations":["User\'s preferred package manager is pnpm"]}]';
const init = (status = 'connected') => ({
  type: 'system',
  subtype: 'init',
  uuid: SID,
  session_id: SID,
  cwd: '/tmp/memeval-cross-session-recall/project',
  tools: ['mcp__memory__create_entities', 'mcp__memory__add_observations', 'agent'],
  mcp_servers: [{ name: 'memory', status }],
  model: 'scripted',
  permission_mode: 'yolo',
  qwen_code_version: '0.15.10',
});
const use = (id: string, name: string) => ({
  type: 'assistant',
  session_id: SID,
  message: {
    type: 'message',
    role: 'assistant',
    model: 'scripted',
    content: [{ type: 'tool_use', id, name, input: {} }],
    stop_reason: 'tool_use',
    usage: { input_tokens: 15164, output_tokens: 43 },
  },
});
const res = (id: string, isError = false) => ({
  type: 'user',
  session_id: SID,
  message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, is_error: isError, content: '[]' }] },
});
const result = (over: Record<string, unknown> = {}) => ({
  type: 'result',
  subtype: 'success',
  session_id: SID,
  is_error: false,
  duration_ms: 2055,
  num_turns: 3,
  result: ANSWER,
  usage: { input_tokens: 45838, output_tokens: 134, cache_read_input_tokens: 0, total_tokens: 45972 },
  permission_denials: [],
  ...over,
});
const jsonl = (events: unknown[]) => events.map((e) => JSON.stringify(e)).join('\n') + '\n';
const recorded = jsonl([
  init(),
  use('call_0_66d62b6140f6', 'mcp__memory__create_entities'),
  res('call_0_66d62b6140f6'),
  use('call_1_f4eb78e5a44e', 'mcp__memory__add_observations'),
  res('call_1_f4eb78e5a44e'),
  { type: 'assistant', session_id: SID, message: { role: 'assistant', content: [{ type: 'text', text: ANSWER }] } },
  result(),
]);

test('a recorded remember turn: answer, session id, memory calls and usage', () => {
  assert.deepEqual(qwen.parse(recorded, 0), {
    finalText: ANSWER,
    conversationId: SID,
    usage: { input: 45838, output: 134, cache_read: 0, cache_write: 0, cost_usd: null },
    cumulative: { input: 45838, output: 134, cache_read: 0, cache_write: 0, cost_usd: null },
    toolCalls: [
      { tool: 'create_entities', ok: true },
      { tool: 'add_observations', ok: true },
    ],
    invalid: [],
  });
});

test('after --resume, usage is this turn only: the running totals minus the last turn', () => {
  const first = qwen.parse(recorded, 0);
  const second = qwen.parse(
    jsonl([init(), result({ usage: { input_tokens: 70000, output_tokens: 200, cache_read_input_tokens: 9000 } })]),
    0,
    first,
  );
  assert.deepEqual(second.usage, {
    input: 70000 - 45838,
    output: 66,
    cache_read: 9000,
    cache_write: 0,
    cost_usd: null,
  });
});

test('a failed model call keeps subtype success and exit 0: an [API Error: answer is invalid', () => {
  const r = qwen.parse(jsonl([init(), result({ result: '[API Error: Connection error. (cause: fetch failed)]' })]), 0);
  assert.deepEqual(r.invalid, ['agent error: [API Error: Connection error. (cause: fetch failed)]']);
  assert.deepEqual(
    qwen.parse(jsonl([init(), result({ is_error: true, result: undefined, subtype: 'error_during_execution' })]), 1)
      .invalid,
    ['agent error: error_during_execution'],
  );
  assert.deepEqual(qwen.parse(jsonl([init(), result({ subtype: 'error_max_turns' })]), 0).invalid, ['max turns hit']);
});

test('the memory server not connecting and an errored memory call are reported', () => {
  const r = qwen.parse(
    jsonl([init('disconnected'), use('c1', 'mcp__memory__search_nodes'), res('c1', true), result()]),
    0,
  );
  assert.deepEqual(r.toolCalls, [{ tool: 'search_nodes', ok: false }]);
  assert.deepEqual(r.invalid, ['MCP server "memory" did not load (status disconnected)']);
});

test('fail closed: no result event (max session turns exits 53 with nothing on stdout) is no answer', () => {
  assert.deepEqual(qwen.parse('', 53).invalid, ['no result event (exit 53: max session turns hit)']);
  for (const stdout of ['', '\n', 'Loaded cached credentials.\n', '{"type":"result","subtype":"success"']) {
    const r = qwen.parse(stdout, 1);
    assert.equal(r.finalText, '');
    assert.deepEqual(r.invalid, ['no result event (exit 1)']);
  }
});

test('fail closed: the recorded transcript torn anywhere before its result line ends is no finished turn', () => {
  const end = recorded.lastIndexOf('}') + 1;
  for (let cut = 0; cut < end; cut += 5) {
    const r = qwen.parse(recorded.slice(0, cut), null);
    assert.ok(r.invalid.includes('no result event (exit null)'), `cut at ${cut}`);
    assert.equal(r.finalText, '');
  }
  assert.deepEqual(qwen.parse(recorded.slice(0, end), 0).invalid, []);
});
