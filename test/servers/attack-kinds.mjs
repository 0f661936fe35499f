// A correct memory server whose remember takes an optional `kind` from a fixed list (as many real
// servers type their memories): fact (the default), preference, decision. Anything else is refused
// with a tool error naming the list, as its input schema says. Newline-delimited JSON-RPC by hand.
// STORE: a JSONL file of {id, text, kind, deleted}.
import { existsSync, readFileSync, writeFileSync, appendFileSync } from 'node:fs';

const store = process.env.STORE;
if (!existsSync(store)) writeFileSync(store, '');
const KINDS = (process.env.KINDS ?? 'fact,preference,decision').split(',');
const read = () =>
  readFileSync(store, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const write = (rows) => writeFileSync(store, rows.map((r) => JSON.stringify(r) + '\n').join(''));
const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
const text = (t, isError = false) => ({ content: [{ type: 'text', text: t }], ...(isError ? { isError: true } : {}) });
const str = { type: 'string' };
const tools = [
  {
    name: 'remember',
    description: 'store a memory',
    inputSchema: {
      type: 'object',
      properties: { text: str, kind: { type: 'string', enum: KINDS } },
      required: ['text'],
    },
  },
  {
    name: 'recall',
    description: 'search memories',
    inputSchema: { type: 'object', properties: { query: str }, required: ['query'] },
  },
  {
    name: 'forget',
    description: 'delete a memory by id',
    inputSchema: { type: 'object', properties: { id: str }, required: ['id'] },
  },
  {
    name: 'update',
    description: 'replace the text of a memory',
    inputSchema: { type: 'object', properties: { id: str, text: str }, required: ['id', 'text'] },
  },
];
const words = (s) =>
  String(s)
    .toLowerCase()
    .match(/[a-z0-9]+/g) ?? [];

function call(name, args) {
  switch (name) {
    case 'remember': {
      const kind = args.kind === undefined || args.kind === '' ? 'fact' : args.kind;
      if (!KINDS.includes(kind)) return text(`invalid kind "${kind}": one of ${KINDS.join(', ')}`, true);
      const id = `mem-${String(read().length + 1).padStart(4, '0')}`;
      appendFileSync(store, JSON.stringify({ id, text: String(args.text), kind, deleted: false }) + '\n');
      return text(`stored ${id}`);
    }
    case 'recall': {
      const q = new Set(words(args.query));
      const hits = read().filter((r) => !r.deleted && words(r.text).some((w) => q.has(w)));
      return text(JSON.stringify({ results: hits.map((h) => h.text) }));
    }
    case 'forget':
      write(read().map((r) => (r.id === args.id ? { ...r, deleted: true } : r)));
      return text(`forgot ${args.id}`);
    case 'update':
      write(read().map((r) => (r.id === args.id ? { ...r, text: String(args.text) } : r)));
      return text(`updated ${args.id}`);
    default:
      return text(`unknown tool ${name}`, true);
  }
}

let buf = '';
process.stdin.on('data', (c) => {
  buf += c;
  for (let nl = buf.indexOf('\n'); nl !== -1; nl = buf.indexOf('\n')) {
    const line = buf.slice(0, nl);
    buf = buf.slice(nl + 1);
    if (!line.trim()) continue;
    const msg = JSON.parse(line);
    if (msg.id === undefined) continue;
    const reply = (result) => send({ jsonrpc: '2.0', id: msg.id, result });
    if (msg.method === 'initialize')
      reply({
        protocolVersion: msg.params?.protocolVersion ?? '2025-06-18',
        capabilities: { tools: {} },
        serverInfo: { name: 'attack-kinds', version: '1.0.0' },
      });
    else if (msg.method === 'tools/list') reply({ tools });
    else if (msg.method === 'tools/call') reply(call(msg.params?.name, msg.params?.arguments ?? {}));
    else if (msg.method === 'ping') reply({});
    else send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: `method not found: ${msg.method}` } });
  }
});
process.stdin.on('end', () => process.exit(0));
