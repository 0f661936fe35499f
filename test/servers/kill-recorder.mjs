// A small MCP memory server that records every byte it reads, for the kill-step tests: where a
// kill lands is read back from what the killed process had received. Newline-delimited JSON-RPC
// by hand (so the raw bytes are what it logs). Environment:
//   STORE     a JSONL file of {id, text}
//   RECEIVED  a JSONL log: {pid, data} per chunk read from stdin; on SIGTERM it first reads what
//             is left in its stdin without waiting and logs it with drained: true, so a test
//             sees exactly what had reached it when it was killed
// A remember whose text contains HOLD is stored at once and answered only 5 s later (a kill
// "during" such a write fires on the store's change, not on the answer).
import { appendFileSync, existsSync, readFileSync, readSync, writeFileSync } from 'node:fs';

const { STORE: store, RECEIVED: received } = process.env;
if (!store || !received) {
  process.stderr.write('kill-recorder: STORE and RECEIVED must be set\n');
  process.exit(2);
}
if (!existsSync(store)) writeFileSync(store, '');

// in a PID namespace every server is the same pid: a start of its own names this process
const me = `${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`;
const log = (data, extra = {}) => appendFileSync(received, JSON.stringify({ pid: me, data, ...extra }) + '\n');
const rows = () =>
  readFileSync(store, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
const text = (t, isError = false) => ({ content: [{ type: 'text', text: t }], ...(isError ? { isError: true } : {}) });
const str = { type: 'string' };
const tools = [
  { name: 'remember', inputSchema: { type: 'object', properties: { text: str }, required: ['text'] } },
  { name: 'recall', inputSchema: { type: 'object', properties: { query: str }, required: ['query'] } },
  { name: 'forget', inputSchema: { type: 'object', properties: { id: str }, required: ['id'] } },
];

async function call(name, args) {
  if (name === 'remember') {
    const id = `m-${rows().length + 1}`;
    appendFileSync(store, JSON.stringify({ id, text: String(args.text) }) + '\n');
    if (String(args.text).includes('HOLD')) await new Promise((r) => setTimeout(r, 5000));
    return text(`stored ${id}`);
  }
  if (name === 'recall') {
    const words = String(args.query).toLowerCase().split(/\W+/).filter(Boolean);
    const hits = rows().filter((r) => words.some((w) => r.text.toLowerCase().includes(w)));
    return text(JSON.stringify({ results: hits.map((r) => r.text) }));
  }
  if (name === 'forget') {
    writeFileSync(
      store,
      rows()
        .filter((r) => r.id !== args.id)
        .map((r) => JSON.stringify(r) + '\n')
        .join(''),
    );
    return text(`forgot ${args.id}`);
  }
  return text(`unknown tool ${name}`, true);
}

async function handle(msg) {
  if (msg.id === undefined) return;
  const reply = (result) => send({ jsonrpc: '2.0', id: msg.id, result });
  if (msg.method === 'initialize')
    return reply({
      protocolVersion: msg.params?.protocolVersion ?? '2025-06-18',
      capabilities: { tools: {} },
      serverInfo: { name: 'kill-recorder', version: '1.0.0' },
    });
  if (msg.method === 'tools/list') return reply({ tools });
  if (msg.method === 'tools/call') return reply(await call(msg.params?.name, msg.params?.arguments ?? {}));
  return send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: `method not found: ${msg.method}` } });
}

let buf = '';
let queue = Promise.resolve();
process.stdin.on('data', (chunk) => {
  log(chunk.toString('utf8'));
  buf += chunk;
  for (let nl = buf.indexOf('\n'); nl !== -1; nl = buf.indexOf('\n')) {
    const line = buf.slice(0, nl);
    buf = buf.slice(nl + 1);
    if (line.trim()) queue = queue.then(() => handle(JSON.parse(line)));
  }
});
process.stdin.on('end', () => queue.then(() => process.exit(0)));
process.on('SIGTERM', () => {
  // what reached stdin but was not read yet: read it now, without waiting for more
  const chunk = Buffer.alloc(65536);
  let rest = '';
  for (;;) {
    let n = 0;
    try {
      n = readSync(0, chunk, 0, chunk.length, null);
    } catch {
      break; // EAGAIN: nothing more is waiting
    }
    if (n <= 0) break;
    rest += chunk.subarray(0, n).toString('utf8');
  }
  log(rest, { drained: true });
  process.exit(0);
});
