// A small MCP memory server that misbehaves on purpose, for tests. MODE (env):
//   ok      stores each `save` as a JSONL line in STORE and searches by substring
//   refuse  answers every `save` with a tool error
//   drop    answers "stored" and keeps nothing
//   echo    like ok, but an empty search answers "No results found for: <query>"
//   exit    exits before answering anything
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const mode = process.env.MODE ?? 'ok';
const store = process.env.STORE;
if (mode === 'exit') process.exit(3);

const server = new Server({ name: 'mode-server', version: '1.0.0' }, { capabilities: { tools: {} } });
const text = (t, isError = false) => ({ content: [{ type: 'text', text: t }], isError });
const lines = () =>
  existsSync(store)
    ? readFileSync(store, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];

server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: 'save',
      description: 'store a memory',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    },
    {
      name: 'search',
      description: 'find memories',
      inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
    },
  ],
}));

server.setRequestHandler(CallToolRequestSchema, async (req) => {
  const args = req.params.arguments ?? {};
  if (req.params.name === 'save') {
    if (mode === 'refuse') return text('refused: this server accepts no writes', true);
    if (mode !== 'drop') appendFileSync(store, JSON.stringify({ text: args.text }) + '\n');
    return text(`stored: ${args.text}`);
  }
  if (req.params.name === 'search') {
    const hits = lines().filter((l) => l.text.toLowerCase().includes(String(args.query).toLowerCase()));
    if (!hits.length) return text(mode === 'echo' ? `No results found for: ${args.query}` : '[]');
    return text(JSON.stringify(hits.map((h) => h.text)));
  }
  return text(`unknown tool ${req.params.name}`, true);
});

await server.connect(new StdioServerTransport());
