// Answers a tools/call and exits at once, its answer still in the pipe when it is gone: a
// server killed right after it acknowledged a write. For test/cli/answer-before-exit.test.ts.
const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
let buf = '';
process.stdin.on('data', (c) => {
  buf += c;
  for (let nl = buf.indexOf('\n'); nl !== -1; nl = buf.indexOf('\n')) {
    const msg = JSON.parse(buf.slice(0, nl));
    buf = buf.slice(nl + 1);
    if (msg.id === undefined) continue;
    if (msg.method === 'initialize')
      send({
        jsonrpc: '2.0',
        id: msg.id,
        result: {
          protocolVersion: msg.params.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: 'x', version: '1' },
        },
      });
    else if (msg.method === 'tools/call') {
      // a pipe write is synchronous on Linux: the answer is in the pipe before the process ends
      send({ jsonrpc: '2.0', id: msg.id, result: { content: [{ type: 'text', text: 'stored m-1' }] } });
      process.exit(0);
    }
  }
});
