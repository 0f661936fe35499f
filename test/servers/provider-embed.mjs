// A small MCP memory server that embeds every memory and query through the model provider at
// PROVIDER (OpenAI /v1/embeddings), for provider-fault tests. What it does when an embedding
// request fails (an error status, a body that is not JSON, a vector of the wrong size or none,
// no answer within 1.5 s) comes from MODE:
//   keep     stores the memory without a vector (recall by words still finds it)
//   retry    waits Retry-After and asks again (up to 3 tries), then keeps it without a vector
//   refuse   answers the remember with a tool error, stores nothing
//   drop     answers "stored" and stores nothing: the write is lost silently
//   offline  never calls the provider (a scenario's faults are never served)
// STORE is a JSONL file of {id, text, vector|null}. Recall: memories sharing a word (4+ letters)
// with the query, or whose vector has cosine >= 0.8 to the query's.
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';

const mode = process.env.MODE ?? 'keep';
const store = process.env.STORE;
const provider = process.env.PROVIDER;
const DIMS = 32;
if (!existsSync(store)) writeFileSync(store, '');

const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
const text = (t, isError = false) => ({ content: [{ type: 'text', text: t }], ...(isError ? { isError: true } : {}) });
const rows = () =>
  readFileSync(store, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const str = { type: 'string' };
const tools = [
  {
    name: 'remember',
    description: 'store a memory',
    inputSchema: { type: 'object', properties: { text: str }, required: ['text'] },
  },
  {
    name: 'recall',
    description: 'search memories',
    inputSchema: { type: 'object', properties: { query: str }, required: ['query'] },
  },
];

/** One embedding request: the vector, or why there is none, and the Retry-After it was told. */
async function embedOnce(input) {
  try {
    const r = await fetch(`${provider}/v1/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: JSON.stringify({ model: 'm', input, dimensions: DIMS }),
      signal: AbortSignal.timeout(1500),
    });
    if (r.status !== 200) return { error: `HTTP ${r.status}`, retryAfter: Number(r.headers.get('retry-after') ?? 0) };
    const v = (await r.json()).data?.[0]?.embedding;
    if (!Array.isArray(v) || v.length !== DIMS)
      return { error: `a ${Array.isArray(v) ? v.length : 'missing'}-d vector` };
    return { vector: v };
  } catch (e) {
    return { error: e.name === 'TimeoutError' ? 'timeout' : `bad answer: ${e.message}` };
  }
}

async function embed(input) {
  if (mode === 'offline') return { error: 'offline' };
  let r = await embedOnce(input);
  for (let i = 1; i < 3 && mode === 'retry' && r.error && r.retryAfter !== undefined; i++) {
    await new Promise((res) => setTimeout(res, r.retryAfter * 1000));
    r = await embedOnce(input);
  }
  return r;
}

const cos = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);

async function call(name, args) {
  if (name === 'remember') {
    const t = String(args.text);
    const { vector, error } = await embed(t);
    if (error && mode === 'refuse') return text(`could not embed the memory: ${error}`, true);
    const id = `mem-${rows().length + 1}`;
    if (!(error && mode === 'drop'))
      appendFileSync(store, JSON.stringify({ id, text: t, vector: vector ?? null }) + '\n');
    return text(`stored ${id}`);
  }
  if (name === 'recall') {
    const words =
      String(args.query)
        .toLowerCase()
        .match(/[a-z0-9]{4,}/g) ?? [];
    const { vector } = await embed(String(args.query));
    const hits = rows().filter(
      (r) =>
        words.some((w) => r.text.toLowerCase().includes(w)) || (vector && r.vector && cos(vector, r.vector) >= 0.8),
    );
    return text(JSON.stringify({ results: hits.map((h) => h.text) }));
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
      serverInfo: { name: `provider-embed-${mode}`, version: '1.0.0' },
    });
  if (msg.method === 'tools/list') return reply({ tools });
  if (msg.method === 'tools/call') return reply(await call(msg.params?.name, msg.params?.arguments ?? {}));
  if (msg.method === 'ping') return reply({});
  send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: `method not found: ${msg.method}` } });
}

let buf = '';
let queue = Promise.resolve();
process.stdin.on('data', (c) => {
  buf += c;
  for (let nl = buf.indexOf('\n'); nl !== -1; nl = buf.indexOf('\n')) {
    const line = buf.slice(0, nl);
    buf = buf.slice(nl + 1);
    // one request at a time, in order, as a store would
    if (line.trim()) queue = queue.then(() => handle(JSON.parse(line)));
  }
});
process.stdin.on('end', () => queue.then(() => process.exit(0)));
