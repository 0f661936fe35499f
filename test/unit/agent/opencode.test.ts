import { test } from 'node:test';
import assert from 'node:assert/strict';
import { opencode } from '../../../src/agent/adapters/opencode.js';

// `opencode run --format json` stdout of opencode 1.18.33 for a remember prompt against
// memeval's scripted model, recorded (ids and outputs shortened). There is no result event:
// each model step ends with step_finish, the last with a reason other than tool-calls.
const SID = 'ses_de8014d2effeopBYwa4uIiLrtD';
const ANSWER = 'Done. [{"entityName":"user","addedObservations":["User\'s preferred package manager is pnpm"]}]';
const ev = (type: string, part: Record<string, unknown>) => ({
  type,
  timestamp: 1795698917273,
  sessionID: SID,
  part: { sessionID: SID, messageID: 'msg_1', ...part },
});
const start = () => ev('step_start', { id: 'prt_s', type: 'step-start' });
const tool = (name: string, status: string, extra: Record<string, unknown> = {}) =>
  ev('tool_use', {
    type: 'tool',
    tool: name,
    callID: `call_${name}`,
    state: { status, input: {}, output: '[]', ...extra },
  });
const finish = (reason: string, input: number, output: number, more: Record<string, unknown> = {}) =>
  ev('step_finish', {
    id: 'prt_f',
    reason,
    type: 'step-finish',
    tokens: { total: input + output, input, output, reasoning: 0, cache: { write: 0, read: 0 } },
    cost: 0,
    ...more,
  });
const text = (t: string) => ev('text', { id: 'prt_t', type: 'text', text: t });
const jsonl = (events: unknown[]) => events.map((e) => JSON.stringify(e)).join('\n') + '\n';
const recorded = jsonl([
  start(),
  tool('memory_create_entities', 'completed'),
  finish('tool-calls', 9269, 42),
  start(),
  tool('memory_add_observations', 'completed'),
  finish('tool-calls', 9372, 47),
  start(),
  text(ANSWER),
  finish('stop', 9488, 42),
]);

test('a recorded remember run: answer, session id, memory calls, usage summed over steps', () => {
  assert.deepEqual(opencode.parse(recorded, 0), {
    finalText: ANSWER,
    conversationId: SID,
    usage: { input: 9269 + 9372 + 9488, output: 42 + 47 + 42, cache_read: 0, cache_write: 0, cost_usd: 0 },
    toolCalls: [
      { tool: 'create_entities', ok: true },
      { tool: 'add_observations', ok: true },
    ],
    invalid: [],
  });
});

test('reasoning tokens count as output, cache tokens and cost are summed', () => {
  const r = opencode.parse(
    jsonl([
      finish('tool-calls', 10, 5, {
        tokens: { input: 10, output: 5, reasoning: 7, cache: { read: 100, write: 3 } },
        cost: 0.25,
      }),
      finish('stop', 1, 1, { tokens: { input: 1, output: 1, reasoning: 0, cache: { read: 50, write: 0 } }, cost: 0.5 }),
    ]),
    0,
  );
  assert.deepEqual(r.usage, { input: 11, output: 13, cache_read: 150, cache_write: 3, cost_usd: 0.75 });
});

test('only the text after the last tool call is the answer; other tools are not memory calls', () => {
  const r = opencode.parse(
    jsonl([
      start(),
      text('Let me save that.'),
      tool('memory_search_nodes', 'error', { error: 'MCP error -32603' }),
      tool('read', 'completed'),
      finish('tool-calls', 1, 1),
      start(),
      text('Saved'),
      text(' it.'),
      finish('stop', 1, 1),
    ]),
    0,
  );
  assert.equal(r.finalText, 'Saved it.');
  assert.deepEqual(r.toolCalls, [{ tool: 'search_nodes', ok: false }]);
  assert.deepEqual(r.invalid, []);
});

test('a denied tool call and an error event are reported', () => {
  const r = opencode.parse(
    jsonl([
      tool('memory_add_observations', 'error', {
        error: 'The user rejected permission to use this specific tool call',
      }),
      {
        type: 'error',
        timestamp: 1,
        sessionID: SID,
        error: { name: 'APIError', data: { message: 'Unauthorized: invalid api key' } },
      },
    ]),
    1,
  );
  assert.deepEqual(r.invalid, [
    'tool call denied: memory_add_observations',
    'agent error: Unauthorized: invalid api key',
  ]);
  assert.deepEqual(opencode.parse(jsonl([{ type: 'error', error: {} }]), 1).invalid, ['agent error: unknown']);
});

test('fail closed: empty or non-JSON output is no answer', () => {
  for (const stdout of ['', '\n', 'Error: no such session\n', '{"type":"step_finish","part":{"reason":"stop"']) {
    const r = opencode.parse(stdout, 1);
    assert.equal(r.finalText, '');
    assert.deepEqual(r.invalid, ['no final step (exit 1)']);
  }
});

test('fail closed: a run that stops after a tool-calls step did not finish', () => {
  const r = opencode.parse(
    jsonl([start(), tool('memory_create_entities', 'completed'), finish('tool-calls', 1, 1)]),
    0,
  );
  assert.deepEqual(r.invalid, ['no final step (exit 0)']);
});

test('fail closed: the recorded transcript torn anywhere before its last step_finish ends is no finished run', () => {
  const end = recorded.lastIndexOf('}') + 1;
  for (let cut = 0; cut < end; cut += 7) {
    const r = opencode.parse(recorded.slice(0, cut), null);
    assert.deepEqual(r.invalid, ['no final step (exit null)'], `cut at ${cut}`);
  }
  assert.deepEqual(opencode.parse(recorded.slice(0, end), 0).invalid, []);
});
