import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { ALL_ADAPTERS } from '../../../src/model/server.js';

// The scripted server asks every adapter's side() first, then the first adapter that matches():
// the paths the agents were recorded sending must reach their own protocol, and only it.
const RECORDED: [agent: string, method: string, path: string, protocol: string][] = [
  ['claude-code', 'POST', '/v1/messages?beta=true', 'anthropic-messages'],
  ['codex', 'POST', '/v1/responses', 'openai-responses'],
  ['qwen', 'POST', '/v1/chat/completions', 'openai-chat'],
  ['opencode', 'POST', '/v1/chat/completions', 'openai-chat'],
  ['gemini', 'POST', '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse', 'gemini'],
];

function sink() {
  let written = false;
  const res = {
    writeHead: () => {
      written = true;
      return res;
    },
    end: () => {
      written = true;
    },
  };
  return { res: res as unknown as ServerResponse, written: () => written };
}

for (const [agent, method, path, protocol] of RECORDED) {
  test(`${agent}'s model request ${path} goes to ${protocol} alone and is no side request`, () => {
    assert.deepEqual(
      ALL_ADAPTERS.filter((a) => a.matches(method, path)).map((a) => a.protocol),
      [protocol],
    );
    for (const a of ALL_ADAPTERS) {
      const s = sink();
      assert.equal(
        a.side?.(method, path, { messages: [], contents: [], tools: [{}] }, s.res) ?? false,
        false,
        `${a.protocol} took it as a side request`,
      );
      assert.equal(s.written(), false);
    }
  });
}

test('a bare GET /v1/models, which several protocols know, is answered by the Anthropic shape Claude Code reads', () => {
  assert.equal(
    ALL_ADAPTERS.find((a) => a.side?.('GET', '/v1/models', undefined, sink().res))?.protocol,
    'anthropic-messages',
  );
});
