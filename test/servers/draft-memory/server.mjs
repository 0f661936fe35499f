// A tiny MCP memory server for `memeval targets new` tests: remember, search and delete over a
// SQLite file under $HOME, with a history table beside the memories (the drafting must pick the
// memories table). BROKEN_DELETE=1 answers "Deleted" and keeps the row, so `targets check` fails.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const dir = join(process.env.HOME, '.draft-memory');
mkdirSync(dir, { recursive: true });
const db = new Database(join(dir, 'memories.db'));
db.exec(`CREATE TABLE IF NOT EXISTS memories (id INTEGER PRIMARY KEY, content TEXT NOT NULL, category TEXT, created_at TEXT);
  CREATE TABLE IF NOT EXISTS history (memory_id INTEGER, event TEXT, content TEXT)`);

const server = new Server({ name: 'draft-memory', version: '1.0.0' }, { capabilities: { tools: {} } });
const text = (t, isError = false) => ({ content: [{ type: 'text', text: t }], isError });
const object = (properties, required) => ({ type: 'object', properties, required });

server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: 'remember',
      inputSchema: object({ content: { type: 'string' }, category: { type: 'string', enum: ['fact', 'preference'] } }, [
        'content',
        'category',
      ]),
    },
    {
      name: 'search_memories',
      inputSchema: object({ query: { type: 'string' }, limit: { type: 'number' } }, ['query']),
    },
    { name: 'delete_memory', inputSchema: object({ id: { type: 'number' } }, ['id']) },
    { name: 'list_tags', inputSchema: object({}, []) },
  ],
}));

server.setRequestHandler(CallToolRequestSchema, async (req) => {
  const a = req.params.arguments ?? {};
  switch (req.params.name) {
    case 'remember': {
      const r = db
        .prepare('INSERT INTO memories (content, category, created_at) VALUES (?, ?, ?)')
        .run(String(a.content), String(a.category), new Date().toISOString());
      db.prepare('INSERT INTO history VALUES (?, ?, ?)').run(r.lastInsertRowid, 'add', String(a.content));
      return text(`Stored memory #${r.lastInsertRowid} (${a.category})`);
    }
    case 'search_memories': {
      const rows = db
        .prepare('SELECT id, content FROM memories WHERE instr(lower(content), lower(?)) > 0')
        .all(String(a.query));
      if (!rows.length) return text(`No memories match "${a.query}".`);
      return text(`Found ${rows.length} memories:\n${rows.map((r) => `- [#${r.id}] ${r.content}`).join('\n')}`);
    }
    case 'delete_memory': {
      const gone =
        process.env.BROKEN_DELETE === '1'
          ? { changes: 1 }
          : db.prepare('DELETE FROM memories WHERE id = ?').run(Number(a.id));
      return gone.changes ? text(`Deleted #${a.id}`) : text(`no memory #${a.id}`, true);
    }
    case 'list_tags':
      return text('[]');
  }
  return text(`unknown tool ${req.params.name}`, true);
});

await server.connect(new StdioServerTransport());
