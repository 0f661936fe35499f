import { test } from 'node:test';
import assert from 'node:assert/strict';
import { claudeCode } from '../../../src/agent/adapters/claude-code.js';

// `claude -p --output-format stream-json --verbose` stdout of Claude Code 2.1.197 for a remember
// prompt against memeval's scripted model, recorded and cut down (long lists shortened).
const SID = '43b2e83a-327d-4dbd-83d9-f773e090fc87';
const ANSWER =
  'Done. {"results":[{"entityName":"user","addedObservations":["User\'s preferred package manager is pnpm"]}]}';
const init = (status = 'connected', apiKeySource = 'ANTHROPIC_API_KEY') => ({
  type: 'system',
  subtype: 'init',
  cwd: '/tmp/memeval-cross-session-recall/project',
  session_id: SID,
  tools: ['Task', 'Bash', 'Write', 'mcp__memory__create_entities', 'mcp__memory__add_observations'],
  mcp_servers: [{ name: 'memory', status }],
  model: 'scripted',
  permissionMode: 'default',
  apiKeySource,
  claude_code_version: '2.1.197',
});
const toolUse = (id: string, name: string, input: unknown) => ({
  type: 'assistant',
  message: {
    id: `msg_${id}`,
    type: 'message',
    role: 'assistant',
    model: 'scripted',
    content: [{ type: 'tool_use', id, name, input }],
    stop_reason: null,
    usage: { input_tokens: 20133, output_tokens: 1 },
  },
  parent_tool_use_id: null,
  session_id: SID,
});
const toolResult = (id: string, content: string, isError?: boolean) => ({
  type: 'user',
  message: {
    role: 'user',
    content: [
      { tool_use_id: id, type: 'tool_result', content, ...(isError === undefined ? {} : { is_error: isError }) },
    ],
  },
  parent_tool_use_id: null,
  session_id: SID,
});
const result = (over: Record<string, unknown> = {}) => ({
  type: 'result',
  subtype: 'success',
  is_error: false,
  duration_ms: 1289,
  num_turns: 3,
  result: ANSWER,
  stop_reason: 'end_turn',
  session_id: SID,
  total_cost_usd: 0.30671000000000004,
  usage: { input_tokens: 60702, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 128 },
  modelUsage: {
    scripted: {
      inputTokens: 60702,
      outputTokens: 128,
      cacheReadInputTokens: 0,
      cacheCreationInputTokens: 0,
      costUSD: 0.30671000000000004,
    },
  },
  permission_denials: [],
  terminal_reason: 'completed',
  ...over,
});
const jsonl = (events: unknown[]) => events.map((e) => JSON.stringify(e)).join('\n') + '\n';
const events = [
  init(),
  toolUse('call_0_694cc5d52bf2', 'mcp__memory__create_entities', {
    entities: [{ name: 'user', entityType: 'preference', observations: [] }],
  }),
  toolResult('call_0_694cc5d52bf2', '{"entities":[{"name":"user","entityType":"preference","observations":[]}]}'),
  toolUse('call_1_c9055bde4c69', 'mcp__memory__add_observations', {
    observations: [{ entityName: 'user', contents: ["User's preferred package manager is pnpm"] }],
  }),
  toolResult(
    'call_1_c9055bde4c69',
    '{"results":[{"entityName":"user","addedObservations":["User\'s preferred package manager is pnpm"]}]}',
  ),
  { type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: ANSWER }] }, session_id: SID },
  result(),
];
const recorded = jsonl(events);

test('a recorded remember turn: answer, session id, memory calls and usage', () => {
  assert.deepEqual(claudeCode.parse(recorded, 0), {
    finalText: ANSWER,
    conversationId: SID,
    usage: { input: 60702, output: 128, cache_read: 0, cache_write: 0, cost_usd: 0.30671000000000004 },
    toolCalls: [
      { tool: 'create_entities', ok: true },
      { tool: 'add_observations', ok: true },
    ],
    invalid: [],
  });
});

test('usage sums every model the turn used (a sub-agent or a small model), cache tokens included', () => {
  const r = claudeCode.parse(
    jsonl([
      init(),
      result({
        modelUsage: {
          'claude-sonnet-4-5': {
            inputTokens: 100,
            outputTokens: 20,
            cacheReadInputTokens: 5000,
            cacheCreationInputTokens: 300,
          },
          'claude-haiku-4-5': { inputTokens: 7, outputTokens: 3 },
        },
        total_cost_usd: 0.0123,
      }),
    ]),
    0,
  );
  assert.deepEqual(r.usage, { input: 107, output: 23, cache_read: 5000, cache_write: 300, cost_usd: 0.0123 });
  assert.deepEqual(r.invalid, []);
});

test('a failed MCP call is a call, not ok; calls to other tools and other servers are not memory calls', () => {
  const r = claudeCode.parse(
    jsonl([
      init(),
      toolUse('t1', 'mcp__memory__delete_observations', {}),
      toolResult('t1', 'MCP error -32602: bad', true),
      toolUse('t2', 'Write', { file_path: 'CLAUDE.md' }),
      toolResult('t2', 'written'),
      toolUse('t3', 'mcp__other__search', {}),
      toolResult('t3', 'x'),
      // a result for a call never announced (torn or foreign) is not counted
      toolResult('t9', 'orphan'),
      result(),
    ]),
    0,
  );
  assert.deepEqual(r.toolCalls, [{ tool: 'delete_observations', ok: false }]);
  assert.deepEqual(r.invalid, []);
});

test('an API failure keeps subtype "success": is_error is what marks the turn invalid', () => {
  const r = claudeCode.parse(
    jsonl([
      init(),
      result({ is_error: true, result: 'API Error: 401 {"type":"error","error":{"type":"authentication_error"}}' }),
    ]),
    1,
  );
  assert.deepEqual(r.invalid, ['agent error: API Error: 401 {"type":"error","error":{"type":"authentication_error"}}']);
});

test('max turns, a missing API key, a memory server that did not connect and denied tools are each reported', () => {
  assert.deepEqual(
    claudeCode.parse(jsonl([init(), result({ subtype: 'error_max_turns', is_error: true, result: undefined })]), 0)
      .invalid,
    ['agent error: error_max_turns', 'max turns hit'],
  );
  assert.deepEqual(claudeCode.parse(jsonl([init(), result({ terminal_reason: 'max_turns' })]), 0).invalid, [
    'max turns hit',
  ]);
  assert.deepEqual(claudeCode.parse(jsonl([init('connected', 'none'), result()]), 0).invalid, ['no API key']);
  assert.deepEqual(claudeCode.parse(jsonl([init('failed'), result()]), 0).invalid, [
    'MCP server "memory" did not load (status failed)',
  ]);
  assert.deepEqual(claudeCode.parse(jsonl([{ ...init(), mcp_servers: [] }, result()]), 0).invalid, [
    'MCP server "memory" did not load (status absent)',
  ]);
  assert.deepEqual(
    claudeCode.parse(
      jsonl([init(), result({ permission_denials: [{ tool_name: 'Write' }, { tool_name: 'Bash' }] })]),
      0,
    ).invalid,
    ['tool calls denied: Write, Bash'],
  );
});

test('fail closed: empty, banner-only or non-JSON output is no answer', () => {
  for (const stdout of [
    '',
    '\n',
    '   ',
    'Error: Invalid API key · Please run /login\n',
    '{"type":"result"',
    'null\n[]\n"text"\n',
  ]) {
    const r = claudeCode.parse(stdout, 1);
    assert.equal(r.finalText, '');
    assert.ok(r.invalid.length > 0, `invalid for ${JSON.stringify(stdout)}`);
    assert.match(r.invalid.at(-1)!, /^no result event \(exit 1\)$/);
  }
});

test('fail closed: the recorded transcript torn anywhere before its result line ends is no finished turn', () => {
  const end = recorded.lastIndexOf('}') + 1;
  for (let cut = 0; cut < end; cut += 7) {
    const r = claudeCode.parse(recorded.slice(0, cut), null);
    assert.ok(
      r.invalid.some((i) => i.startsWith('no result event')),
      `cut at ${cut} parsed as finished`,
    );
    assert.equal(r.finalText, '', `cut at ${cut} has an answer`);
  }
  assert.deepEqual(claudeCode.parse(recorded.slice(0, end), 0).invalid, []);
});

test('banners and warnings around the JSON lines are skipped', () => {
  const r = claudeCode.parse(`warning: something\n${recorded.replace(/\n/g, '\r\n')}trailing noise`, 0);
  assert.equal(r.finalText, ANSWER);
  assert.deepEqual(r.invalid, []);
});
