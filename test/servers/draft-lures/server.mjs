// An MCP memory server for memeval's `targets check` and `targets new` tests, shaped like the
// agent-orchestrator package that misled a draft: learnings kept in SQLite under $HOME, beside an
// activity log of every call (reads included) created first, a fact table whose delete answers
// `{"success": false}` without an error, and tools that look like the ops but are not:
//   delete_learnings(agentId)  deletes every learning of the agent (not one memory)
//   revise_learning(id, content)  adds a new learning and leaves the old one (not an update)
//   find_learnings(query)  lists every learning whatever the query (not a search)
// store_learning answers JSON whose first id-named key is the constant agentId.
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const dir = join(process.env.HOME, '.draft-lures');
mkdirSync(dir, { recursive: true });
const db = new Database(join(dir, 'lures.db'));
db.exec(`CREATE TABLE IF NOT EXISTS activity (seq INTEGER PRIMARY KEY, tool TEXT, text TEXT, at TEXT);
  CREATE TABLE IF NOT EXISTS learnings (id TEXT PRIMARY KEY, agent_id TEXT, title TEXT, content TEXT, created_at TEXT);
  CREATE TABLE IF NOT EXISTS facts (id TEXT PRIMARY KEY, key TEXT, value TEXT)`);

const server = new Server({ name: 'draft-lures', version: '1.0.0' }, { capabilities: { tools: {} } });
const text = (t, isError = false) => ({ content: [{ type: 'text', text: t }], isError });
const json = (v, isError = false) => text(JSON.stringify(v, null, 2), isError);
const string = { type: 'string' };
const tool = (name, properties, required) => ({ name, inputSchema: { type: 'object', properties, required } });
const newId = (prefix) => `${prefix}-${randomBytes(4).toString('hex')}`;
const rows = () => db.prepare('SELECT id, title, content FROM learnings ORDER BY rowid').all();

server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    tool('store_learning', { agentId: string, title: string, content: string }, ['agentId', 'title', 'content']),
    tool('store_project_fact', { key: string, value: string }, ['key', 'value']),
    tool('search_learnings', { query: string }, ['query']),
    tool('find_learnings', { query: string }, []),
    tool('update_learning', { id: string, content: string }, ['id', 'content']),
    tool('revise_learning', { id: string, content: string }, ['id', 'content']),
    tool('delete_fact', { id: string }, ['id']),
    tool('delete_learning', { id: string }, ['id']),
    tool('delete_learnings', { agentId: string }, ['agentId']),
  ],
}));

function call(name, a) {
  switch (name) {
    case 'store_learning': {
      const learning = { agentId: String(a.agentId), title: String(a.title), content: String(a.content) };
      learning.id = newId('lrn');
      learning.createdAt = new Date().toISOString();
      db.prepare('INSERT INTO learnings VALUES (?, ?, ?, ?, ?)').run(
        learning.id,
        learning.agentId,
        learning.title,
        learning.content,
        learning.createdAt,
      );
      return json({ success: true, learning });
    }
    case 'store_project_fact': {
      const id = newId('fact');
      db.prepare('INSERT INTO facts VALUES (?, ?, ?)').run(id, String(a.key), String(a.value));
      return json({ success: true, fact: { id, key: a.key, value: a.value } });
    }
    case 'search_learnings': {
      const q = String(a.query).toLowerCase();
      return json({ results: rows().filter((r) => r.content.toLowerCase().includes(q)) });
    }
    case 'find_learnings':
      return json({ results: rows() });
    case 'update_learning': {
      const r = db.prepare('UPDATE learnings SET content = ? WHERE id = ?').run(String(a.content), String(a.id));
      return r.changes ? json({ success: true }) : json({ error: `no learning ${a.id}` }, true);
    }
    case 'revise_learning': {
      const old = db.prepare('SELECT * FROM learnings WHERE id = ?').get(String(a.id));
      if (!old) return json({ error: `no learning ${a.id}` }, true);
      const id = newId('lrn');
      db.prepare('INSERT INTO learnings VALUES (?, ?, ?, ?, ?)').run(
        id,
        old.agent_id,
        old.title,
        String(a.content),
        new Date().toISOString(),
      );
      return json({ success: true, revision: id });
    }
    case 'delete_fact':
      return json({ success: db.prepare('DELETE FROM facts WHERE id = ?').run(String(a.id)).changes > 0 });
    case 'delete_learning': {
      const r = db.prepare('DELETE FROM learnings WHERE id = ?').run(String(a.id));
      return r.changes ? json({ success: true }) : json({ error: `no learning ${a.id}` }, true);
    }
    case 'delete_learnings':
      return json({ deleted: db.prepare('DELETE FROM learnings WHERE agent_id = ?').run(String(a.agentId)).changes });
  }
  return text(`unknown tool ${name}`, true);
}

server.setRequestHandler(CallToolRequestSchema, async (req) => {
  const a = req.params.arguments ?? {};
  // every call, reads too, in the log: what it was given as text
  const logged = a.content ?? a.query ?? a.value ?? a.id ?? a.agentId ?? '';
  db.prepare('INSERT INTO activity (tool, text, at) VALUES (?, ?, ?)').run(
    req.params.name,
    String(logged),
    new Date().toISOString(),
  );
  return call(req.params.name, a);
});

await server.connect(new StdioServerTransport());
