import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readStreamJson } from '../../../src/agent/adapters/stream-json.js';

// The stream-json shape Claude Code writes and Qwen Code copies, reduced to what readStreamJson reads.
const jsonl = (events: unknown[]) => events.map((e) => JSON.stringify(e)).join('\n') + '\n';
const init = (servers: unknown) => ({ type: 'system', subtype: 'init', session_id: 's-1', mcp_servers: servers });
const use = (id: string, name: string) => ({
  type: 'assistant',
  message: {
    content: [
      { type: 'text', text: 'calling' },
      { type: 'tool_use', id, name, input: {} },
    ],
  },
});
const res = (id: string, isError?: boolean) => ({
  type: 'user',
  message: {
    content: [
      { type: 'tool_result', tool_use_id: id, content: 'x', ...(isError === undefined ? {} : { is_error: isError }) },
    ],
  },
});
const result = (over: Record<string, unknown> = {}) => ({
  type: 'result',
  subtype: 'success',
  is_error: false,
  session_id: 's-1',
  result: 'the answer',
  ...over,
});

test('memory calls are paired by id and named without the prefix; ok unless is_error is true', () => {
  const {
    out,
    init: i,
    result: r,
  } = readStreamJson(
    jsonl([
      init([{ name: 'memory', status: 'connected' }]),
      use('a', 'mcp__memory__create_entities'),
      use('b', 'mcp__memory__search_nodes'),
      res('b', true),
      res('a'),
      use('c', 'Bash'),
      res('c'),
    ]) + JSON.stringify(result()),
    'mcp__memory__',
  );
  assert.deepEqual(out.toolCalls, [
    { tool: 'search_nodes', ok: false },
    { tool: 'create_entities', ok: true },
  ]);
  assert.equal(i?.session_id, 's-1');
  assert.equal(r?.result, 'the answer');
  assert.equal(out.finalText, 'the answer');
  assert.equal(out.conversationId, 's-1');
  assert.deepEqual(out.invalid, []);
});

test('a call whose result never came is not reported as made', () => {
  const { out } = readStreamJson(jsonl([use('a', 'mcp__memory__add_observations'), result()]), 'mcp__memory__');
  assert.deepEqual(out.toolCalls, []);
});

test('the memory server: absent, failed or pending at init is reported; other servers do not count', () => {
  const invalid = (servers: unknown) => readStreamJson(jsonl([init(servers), result()]), 'mcp__memory__').out.invalid;
  assert.deepEqual(invalid([{ name: 'memory', status: 'pending' }]), [
    'MCP server "memory" did not load (status pending)',
  ]);
  assert.deepEqual(invalid([{ name: 'other', status: 'connected' }]), [
    'MCP server "memory" did not load (status absent)',
  ]);
  assert.deepEqual(invalid(undefined), ['MCP server "memory" did not load (status absent)']);
});

test('denied tool calls are reported; a result without a string result has no answer', () => {
  const { out } = readStreamJson(
    jsonl([result({ result: { text: 'x' }, permission_denials: [{ tool_name: 'Write' }] })]),
    'mcp__memory__',
  );
  assert.equal(out.finalText, '');
  assert.deepEqual(out.invalid, ['tool calls denied: Write']);
});

test('no result event: no answer, no conversation id, and the result is undefined for the agent to report', () => {
  const { out, result: r } = readStreamJson(
    jsonl([
      init([{ name: 'memory', status: 'connected' }]),
      { type: 'assistant', message: { content: [{ type: 'text', text: 'half an answer' }] } },
    ]),
    'mcp__memory__',
  );
  assert.equal(r, undefined);
  assert.equal(out.finalText, '');
  assert.equal(out.conversationId, undefined);
});
