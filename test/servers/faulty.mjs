// A small MCP server that misbehaves on request, for fault tests. Speaks newline-delimited
// JSON-RPC by hand (no SDK) so it can break the framing. Behaviour comes from FAULT:
//   ok                 well behaved
//   big:<bytes>        `save` answers with a text of that many bytes
//   flood              after initialize, writes garbage with no newline, forever
//   noise              writes log lines on stdout among its JSON-RPC
//   stderr:<bytes>     writes that much to stderr at start, then behaves
//   crash-at-start     exits with code 7 before answering anything
//   crash-on-recall    `search` makes the server exit with code 9 (after a line on stderr)
//   daemon             starts a detached daemon in its own session that outlives the server
//   slow-recall        `search` never answers
//   recall-refused     `search` answers with a tool error (isError) whose text holds the hits
//   recall-rpc-error   `search` answers with a JSON-RPC error whose message holds the hits
//   recall-drift       `search` answers the hits as prose ("Found: <text>"), not the JSONL lines of `ok`
//   slow-exit          does not exit when its stdin closes (after a line in EXIT_LOG): a slow stop
//   refuse-all         answers every tools/call with a tool error (isError): it accepts nothing
//   refuse-recall      `search` answers with a tool error; `save` behaves
//   blackhole          `save` answers "saved" and keeps nothing (the store stays empty)
//   redact-residue     `save` stores "[redacted]" but appends the text to RESIDUE (a file beside the
//                      store, anywhere in the fixture), after RESIDUE_PAD bytes of filler the first time
//   redact-escaped     `save` stores "[redacted]" as the text and the real one in a `raw` field,
//                      JSON-escaped as Python writes it (non-ASCII as \uXXXX)
//   exit-at-stop:<n>   exits with code n when its stdin closes or on SIGTERM (a crash at shutdown)
//   lose-store-at-stop empties STORE when its stdin closes, then exits 0
//   store-fallback:stderr  at start, writes on stderr (the line split over two writes) that its
//                      native store module cannot load, as `bindings` words it, then behaves
//   store-fallback:stdout  at start, writes on stdout that its store could not be opened and it
//                      falls back to memory, then behaves
//   drop-first:<n>[:crash]  `save` keeps nothing for the first n saves, counted in FLAKY_DIR/saves
//                      across every process of the test (a cell that fails, then passes on a
//                      retry); with :crash, every later `save` exits with code 9 instead
// `save` appends {text} to STORE (a JSONL file); `search` answers with the lines that contain the
// query, or "nothing found".
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { spawn } from 'node:child_process';

const fault = process.env.FAULT ?? 'ok';
const store = process.env.STORE;
const [mode, arg] = fault.split(':');
const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
const log = (s) => mode === 'noise' && process.stdout.write(`[faulty] ${s}\n`);

if (mode === 'crash-at-start') {
  process.stderr.write('fatal: cannot open store\n');
  process.exit(7);
}
if (mode === 'stderr') {
  const chunk = 'E'.repeat(1023) + '\n';
  // synchronous: all of it is out before the server answers anything
  for (let left = Number(arg); left > 0; left -= 1024) writeSync(2, chunk);
}
if (mode === 'daemon') {
  // a daemon in its own session, marked in its argv so a test can find it from outside any namespace
  const d = spawn(
    process.execPath,
    ['-e', 'setInterval(() => {}, 1000)', 'faulty-daemon', process.env.DAEMON_MARK ?? ''],
    { detached: true, stdio: 'ignore' },
  );
  if (process.env.DAEMON_LOG) appendFileSync(process.env.DAEMON_LOG, 'started\n');
  d.unref();
}
// the line's second half is written later (a second chunk for the reader); a stop before the
// timer fires writes it on the way out, so the line is whole however fast the cell ends
let pendingStderr = '';
const flushStderr = () => {
  if (pendingStderr) writeSync(2, pendingStderr);
  pendingStderr = '';
};
if (mode === 'store-fallback' && arg === 'stderr') {
  writeSync(2, 'Error: Could not locate the bind');
  pendingStderr =
    'ings file. Tried:\n → /x/build/Release/faulty.node\n    at bindings (/x/node_modules/bindings/bindings.js:126:9)\n';
  setTimeout(flushStderr, 50);
}
if (mode === 'store-fallback' && arg === 'stdout')
  process.stdout.write('[faulty] cannot open store.db, falling back to in-memory storage\n');
if (store && !existsSync(store)) writeFileSync(store, '');
log('starting up');

const tools = [
  {
    name: 'save',
    description: 'store a text',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  },
  {
    name: 'search',
    description: 'find texts',
    inputSchema: { type: 'object', properties: { query: { type: 'string' } } },
  },
];

const pyEscape = (t) =>
  JSON.stringify(t).replace(/[^\x00-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
function storedLine(text) {
  if (mode === 'redact-residue') return JSON.stringify({ text: '[redacted]' });
  // written by hand: JSON.stringify would keep non-ASCII as it is
  if (mode === 'redact-escaped') return `{"text": "[redacted]", "raw": ${pyEscape(text)}}`;
  return JSON.stringify({ text });
}
function residue(text) {
  const file = process.env.RESIDUE;
  mkdirSync(dirname(file), { recursive: true });
  if (!existsSync(file) && process.env.RESIDUE_PAD)
    writeFileSync(file, Buffer.alloc(Number(process.env.RESIDUE_PAD), 'z'));
  appendFileSync(file, `saved: ${text}\n`);
}

function handle(msg) {
  if (msg.id === undefined) return;
  const reply = (result) => send({ jsonrpc: '2.0', id: msg.id, result });
  switch (msg.method) {
    case 'initialize':
      reply({
        protocolVersion: msg.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: 'faulty', version: '1.0.0' },
      });
      if (mode === 'flood') {
        const junk = Buffer.alloc(1 << 20, 'x');
        const pump = () => {
          while (process.stdout.write(junk));
          process.stdout.once('drain', pump);
        };
        setImmediate(pump);
      }
      return;
    case 'tools/list':
      log('listing tools');
      return reply({ tools });
    case 'tools/call': {
      const { name, arguments: args = {} } = msg.params;
      log(`call ${name}`);
      const refuse = (why) => reply({ content: [{ type: 'text', text: why }], isError: true });
      if (mode === 'refuse-all') return refuse(`refused: this server accepts no ${name}`);
      if (mode === 'refuse-recall' && name === 'search') return refuse('refused: search is switched off');
      if (name === 'save' && mode === 'drop-first') {
        const counter = `${process.env.FLAKY_DIR}/saves`;
        const seen = existsSync(counter) ? Number(readFileSync(counter, 'utf8')) : 0;
        writeFileSync(counter, String(seen + 1));
        if (seen < Number(arg)) return reply({ content: [{ type: 'text', text: 'saved' }] });
        if (fault.endsWith(':crash')) {
          process.stderr.write('fatal: store corrupted while saving\n');
          process.exit(9);
        }
      }
      if (name === 'save') {
        if (store && mode !== 'blackhole') appendFileSync(store, storedLine(args.text) + '\n');
        if (mode === 'redact-residue') residue(args.text);
        const text = mode === 'big' ? 'saved ' + 'x'.repeat(Number(arg)) : 'saved';
        return reply({ content: [{ type: 'text', text }] });
      }
      if (name === 'search') {
        if (process.env.SEARCH_LOG) appendFileSync(process.env.SEARCH_LOG, 'search\n');
        if (mode === 'crash-on-recall') {
          process.stderr.write('fatal: index corrupted while searching\n');
          process.exit(9);
        }
        if (mode === 'slow-recall') return;
        const hits = store
          ? readFileSync(store, 'utf8')
              .split('\n')
              .filter((l) => l && l.includes(args.query ?? ''))
          : [];
        const found = hits.join('\n');
        if (mode === 'recall-refused')
          return reply({
            content: [{ type: 'text', text: `search index locked; last hits: ${found}` }],
            isError: true,
          });
        if (mode === 'recall-rpc-error')
          return send({ jsonrpc: '2.0', id: msg.id, error: { code: -32603, message: `search failed near ${found}` } });
        if (mode === 'recall-drift')
          return reply({
            content: [
              { type: 'text', text: hits.map((h) => `Found: ${JSON.parse(h).text}`).join('\n') || 'nothing found' },
            ],
          });
        return reply({ content: [{ type: 'text', text: found || 'nothing found' }] });
      }
      return send({ jsonrpc: '2.0', id: msg.id, error: { code: -32602, message: `unknown tool ${name}` } });
    }
    default:
      reply({});
  }
}

let buf = '';
process.stdin.on('data', (c) => {
  buf += c;
  for (let nl = buf.indexOf('\n'); nl !== -1; nl = buf.indexOf('\n')) {
    const line = buf.slice(0, nl);
    buf = buf.slice(nl + 1);
    if (line.trim()) handle(JSON.parse(line));
  }
});
if (mode === 'exit-at-stop') process.on('SIGTERM', () => process.exit(Number(arg)));
process.stdin.on('end', () => {
  flushStderr();
  if (mode === 'exit-at-stop') process.exit(Number(arg));
  if (mode === 'lose-store-at-stop') writeFileSync(store, '');
  if (mode !== 'slow-exit') process.exit(0);
  if (process.env.EXIT_LOG) appendFileSync(process.env.EXIT_LOG, 'asked to exit\n');
  setInterval(() => {}, 1000);
});
