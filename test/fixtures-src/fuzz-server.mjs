// A small MCP memory server for the fuzz checks' tests. It stores memories as JSONL (or SQLite)
// and misbehaves on purpose as FUZZ_MODE (comma-separated) asks.
import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const modes = new Set((process.env.FUZZ_MODE ?? '').split(',').filter(Boolean));
const STORE = process.env.FUZZ_STORE;
let calls = 0;

const readDisk = () =>
  existsSync(STORE)
    ? readFileSync(STORE, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];
// written whole to a temporary file, then renamed over the store: a kill mid-write leaves the old store or the new one
const writeDisk = (rows) => {
  writeFileSync(`${STORE}.tmp`, rows.map((r) => JSON.stringify(r)).join('\n') + (rows.length ? '\n' : ''));
  renameSync(`${STORE}.tmp`, STORE);
};
// save-at-exit: answers from memory and saves the store only when asked to stop, so a kill loses every write
let cache;
const atExit = modes.has('save-at-exit');
const read = () => (atExit ? (cache ??= readDisk()) : readDisk());
const write = (rows) => (atExit ? (cache = rows) : writeDisk(rows));
if (atExit) {
  if (!existsSync(STORE)) writeDisk([]);
  process.stdin.on('end', () => (writeDisk(read()), process.exit(0)));
}
const text = (t, isError = false) => ({ content: [{ type: 'text', text: t }], ...(isError ? { isError: true } : {}) });

if (modes.has('phone-home')) fetch('http://example.com/model.bin').catch(() => {});

const server = new Server({ name: 'fuzz-test', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: 'save',
      inputSchema: {
        type: 'object',
        properties: {
          text: { type: 'string', ...(modes.has('min-length') ? { minLength: 1 } : {}) },
          subject: { type: 'string' },
          category: { type: 'string' },
        },
        required: ['text'],
      },
    },
    { name: 'search', inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } },
    { name: 'delete', inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } },
    {
      name: 'update',
      inputSchema: {
        type: 'object',
        properties: { id: { type: 'string' }, text: { type: 'string' } },
        required: ['id', 'text'],
      },
    },
  ],
}));

server.setRequestHandler(CallToolRequestSchema, async (req) => {
  calls++;
  const a = req.params.arguments ?? {};
  if (modes.has('crash-on-2nd') && calls === 2) process.exit(3);
  if (modes.has('slow-5th') && calls === 5) await new Promise((r) => setTimeout(r, 1500));
  if (modes.has('slow-once')) {
    // one slow call in the whole run: FUZZ_COUNT (outside any fixture) counts calls across processes
    const n = (existsSync(process.env.FUZZ_COUNT) ? Number(readFileSync(process.env.FUZZ_COUNT, 'utf8')) : 0) + 1;
    writeFileSync(process.env.FUZZ_COUNT, String(n));
    if (n === Number(process.env.FUZZ_SLOW_AT)) await new Promise((r) => setTimeout(r, 1500));
  }
  switch (req.params.name) {
    case 'save': {
      if (modes.has('hang')) return new Promise(() => {});
      if (modes.has('hang-at')) {
        // the FUZZ_HANG_AT-th save of the whole run (counted in FUZZ_MARK, outside any fixture) never
        // answers, and leaves a file there so a test knows a case is mid-call
        const count = `${process.env.FUZZ_MARK}/saves`;
        const n = (existsSync(count) ? Number(readFileSync(count, 'utf8')) : 0) + 1;
        writeFileSync(count, String(n));
        if (n === Number(process.env.FUZZ_HANG_AT))
          return (writeFileSync(`${process.env.FUZZ_MARK}/hanging`, ''), new Promise(() => {}));
      }
      if (modes.has('garbage')) process.stdout.write('debug: saving now\n');
      if (modes.has('wrong-id'))
        process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: 987654, result: { content: [] } }) + '\n');
      if (modes.has('refuse-save') || (modes.has('min-length') && a.text === ''))
        return text('Error: database is locked', true);
      // says it saved, keeps its store file and stores nothing in it
      if (modes.has('store-nothing')) return (write(read()), text(`Saved #${read().length + 1}`));
      const rows = read();
      if (modes.has('dedupe') && rows.some((r) => r.text === a.text))
        return text(`Saved #${rows.find((r) => r.text === a.text).id}`);
      const id = String(rows.length + 1);
      if (modes.has('torn')) {
        appendFileSync(
          STORE,
          JSON.stringify({ id, text: a.text, subject: a.subject, category: a.category }).slice(0, 20) + '\n',
        );
        return text(`Saved #${id}`);
      }
      write([...rows, { id, text: a.text, subject: a.subject, category: a.category }]);
      if (modes.has('corrupt-sqlite')) {
        // a SQLite copy of the store whose index the schema then forgets: integrity_check reports its orphaned page
        const { default: Database } = await import('better-sqlite3');
        const db = new Database(process.env.FUZZ_SQLITE);
        db.exec(
          'CREATE TABLE IF NOT EXISTS mem (id TEXT, text TEXT); CREATE INDEX IF NOT EXISTS mem_text ON mem(text)',
        );
        db.prepare('INSERT INTO mem VALUES (?, ?)').run(id, a.text);
        db.unsafeMode(true);
        db.pragma('writable_schema = ON');
        db.exec("DELETE FROM sqlite_schema WHERE name = 'mem_text'");
        db.close();
      }
      return text(`Saved #${id}`);
    }
    case 'search': {
      if (modes.has('search-empty')) return text('no results');
      if (modes.has('refuse-search')) return text(`Error: index locked while searching for ${a.query}`, true);
      // a failure reported in the answer's JSON, the call itself a success
      if (modes.has('json-fail-search')) return text(JSON.stringify({ success: false, results: [] }));
      const hits = read().filter((r) => String(r.text).includes(String(a.query)));
      // echo-empty: no results echo the query, as mcp-memory-keeper's search does
      const none = modes.has('echo-empty') ? `No results found for: "${a.query}"` : 'no results';
      return text(hits.length ? hits.map((r) => `#${r.id} ${r.text}`).join('\n') : none);
    }
    case 'delete': {
      if (modes.has('refuse-delete')) return text('Error: delete is disabled', true);
      // an audit log beside the store keeps what was deleted (no table holds it: only a file scan finds it)
      if (modes.has('audit-file'))
        appendFileSync(`${STORE}.audit.log`, JSON.stringify(read().filter((r) => r.id === a.id)) + '\n');
      if (!modes.has('forget-nothing')) write(read().filter((r) => r.id !== a.id));
      return text(`Deleted #${a.id}`);
    }
    case 'update': {
      const rows = read();
      // update-appends: the new text goes in beside the old one, which stays live
      if (modes.has('update-appends')) write([...rows, { id: String(rows.length + 1), text: a.text }]);
      else write(rows.map((r) => (r.id === a.id ? { ...r, text: a.text } : r)));
      return text(`Updated #${a.id}`);
    }
  }
  return text(`unknown tool ${req.params.name}`, true);
});

// a crash at shutdown: the server is asked to stop (stdin closes; SIGTERM after) and fails doing so
if (modes.has('exit-1-at-stop')) {
  process.stdin.on('end', () => process.exit(1));
  process.on('SIGTERM', () => process.exit(1));
}
// deaf to its stdin closing, and exits 1 on the SIGTERM that follows
if (modes.has('exit-1-on-sigterm')) {
  process.stdin.on('end', () => setInterval(() => {}, 1000));
  process.on('SIGTERM', () => process.exit(1));
}
// abort(), not a signal sent to itself: in a PID namespace the server is its init, which such signals do not reach
if (modes.has('abort-at-stop')) process.stdin.on('end', () => process.abort());
// a store lost at exit: the server truncates it on its way out, and exits 0
if (modes.has('lose-store-at-stop')) process.stdin.on('end', () => (writeFileSync(STORE, ''), process.exit(0)));

// failures at start: exit before the handshake, or never answer it
if (modes.has('exit-at-start')) process.exit(5);
else if (modes.has('mute-at-start')) process.stdin.resume();
else await server.connect(new StdioServerTransport());
