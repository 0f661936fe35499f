// A server that answers and then dies at once (crashed or killed right after it acknowledged a
// write) did acknowledge: the answer it wrote before exiting is read, not called lost because
// the process's exit was noticed before the pipe was read. A kill step decides "acknowledged"
// from exactly this.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ChildTransport } from '../../src/mcp/child-transport.ts';
import { CallRecorder } from '../../src/mcp/recorder.ts';
import { ROOT } from '../helpers.ts';

const SERVER = join(ROOT, 'test', 'servers', 'answer-then-exit.mjs');

test('an answer written just before the server exits is the answer, every time', async () => {
  for (let i = 0; i < 20; i++) {
    const recorder = new CallRecorder(undefined, 1, 'step');
    const transport = new ChildTransport({ command: process.execPath, args: [SERVER], env: {}, cwd: ROOT }, recorder);
    const client = new Client({ name: 'memeval-test', version: '1' });
    await client.connect(transport);
    try {
      const r = await client.callTool({ name: 'remember', arguments: { text: 'a fact' } });
      assert.deepEqual(r.content, [{ type: 'text', text: 'stored m-1' }], `run ${i}`);
      const call = recorder.records.find((x) => x.method === 'tools/call');
      assert.deepEqual([call?.is_error, call?.result_text], [false, 'stored m-1'], `run ${i}`);
    } finally {
      await transport.close();
    }
  }
});
