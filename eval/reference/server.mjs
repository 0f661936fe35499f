// memeval's reference memory server: an MCP server (newline-delimited JSON-RPC over stdio, no
// SDK, so it runs from the package as it is) that does what every built-in scenario checks, and
// does it deterministically. `memeval run --target reference` runs it; a built-in scenario whose
// well-behaved phase fails here judges the wrong thing (test/cli/reference-target.test.ts).
//
//   remember  cleans (zero-width characters) and redacts secrets in every field before anything
//             else sees them; refuses run noise, chatter, musings and what the workspace's own
//             documents already say (a tool error naming why); keeps one copy of an exact
//             duplicate from a source as trusted; with a provider, embeds the text and lets the
//             formation model decide about a write close in meaning to a stored memory (ADD,
//             UPDATE, DELETE, NONE); keeps the write's source, and marks content from outside
//             the conversation (web:, tool:, file:, … sources) untrusted (trust.mjs)
//   update    replaces the text in place: the old text is not kept beside the new
//   forget    deletes the row; secure_delete zeroes its bytes (no index, history or audit copy)
//   namespace remember and recall take an optional project (`namespace`): a recall searches its
//             project only ('' when none is named), and dedupe and formation stay within it
//   recall    ranks by rare shared words and, with a provider, by meaning (search.mjs); an
//             untrusted memory ranks below a trusted one and shows its source in its result
//   curate    merges near-duplicates into the most trusted, most recalled, newest; dry_run reports
//   expire    archives memories not written for RETENTION_DAYS (default 30) by the wall clock
//
// Environment: STORE (the SQLite file), PROVIDER (optional: an OpenAI-compatible base URL),
// EMBEDDING_DIMENSIONS (default 256), RETENTION_DAYS (default 30).
import { curationPlan } from './curate.mjs';
import { inWorkspace, tentative, transient } from './filters.mjs';
import { cosine, Model } from './model.mjs';
import { rank } from './search.mjs';
import { redact, redactLabel } from './secrets.mjs';
import { Store } from './store.mjs';
import { clean, sameText, unmask } from './text.mjs';
import { shown, trustOf, untrusted } from './trust.mjs';

const DAY_MS = 86_400_000;
/** how close in meaning a stored memory must be for the formation model to be asked about a write */
const FORMATION_COSINE = 0.8;

if (!process.env.STORE) {
  process.stderr.write('reference: STORE is not set (the SQLite file to keep memories in)\n');
  process.exit(2);
}
const store = new Store(process.env.STORE);
const model = new Model(process.env.PROVIDER || undefined, Number(process.env.EMBEDDING_DIMENSIONS ?? 256));
const retentionMs = Number(process.env.RETENTION_DAYS ?? 30) * DAY_MS;

const ok = (value) => ({ content: [{ type: 'text', text: JSON.stringify(value) }] });
const refuse = (text) => ({ content: [{ type: 'text', text }], isError: true });

/**
 * A field cleaned and redacted. A secret disguised with look-alike letters is found in the
 * unmasked text, which is then what is kept (redacted); a text that hides nothing keeps its letters.
 */
function scrub(value, label) {
  const r = label ? redactLabel : redact;
  const as = r(clean(value));
  const unmasked = r(unmask(clean(value)));
  return unmasked.count > as.count ? unmasked : as;
}

/** Every field of a write, cleaned and redacted, with how many secrets were taken out. */
function prepare(args) {
  const fields = {};
  let redacted = 0;
  for (const k of ['text', 'category', 'subject', 'source']) {
    if (args[k] === undefined || args[k] === null || args[k] === '') continue;
    const r = scrub(args[k], k !== 'text');
    fields[k] = r.text;
    redacted += r.count;
  }
  return { fields, redacted };
}

/** Why a text is not kept at all, or undefined. */
function refusal(text, category) {
  const inFile = inWorkspace(text);
  return (
    transient(text, category) ??
    tentative(text) ??
    (inFile ? `${inFile} in the workspace already says this; read it from there` : undefined)
  );
}

/** A live memory of the project with the same text from a source as trusted: the same text from the user and from a web page are two memories. */
const duplicateOf = (text, source, ns) =>
  store.live(ns).find((m) => sameText(m.text, text) && untrusted(m.source) === untrusted(source));

/** The project a call names ('' when none: the default one). */
const namespaceOf = (args) => String(args.namespace ?? '');

async function remember(args) {
  const { fields, redacted } = prepare(args);
  if (!fields.text?.trim()) return refuse('not stored: the text is empty');
  const why = refusal(fields.text, fields.category);
  if (why) return refuse(`not stored: ${why}`);
  const note = redacted ? { redacted } : {};
  const ns = namespaceOf(args);
  const dup = duplicateOf(fields.text, fields.source, ns);
  if (dup) return ok({ id: dup.id, status: 'duplicate', note: 'the same text is already stored' });
  const embedding = await model.embed(fields.text);
  const similar = embedding
    ? store
        .live(ns)
        .map((m) => ({ ...m, similarity: cosine(embedding, m.embedding) }))
        .filter((m) => m.similarity >= FORMATION_COSINE)
        // content from outside the conversation never replaces or retires what the conversation said
        .filter((m) => !untrusted(fields.source) || untrusted(m.source))
        .sort((a, b) => b.similarity - a.similarity)
        .slice(0, 5)
    : [];
  const { decision, id } = similar.length ? await model.decide(fields.text, similar) : { decision: 'ADD' };
  return store.write(() => {
    // another server process on this store may have written the same text meanwhile
    const again = duplicateOf(fields.text, fields.source, ns);
    if (again) return ok({ id: again.id, status: 'duplicate', note: 'the same text is already stored' });
    const target = id && store.get(id)?.status === 'active' ? id : undefined;
    if (decision === 'NONE' && target)
      return ok({ id: target, status: 'duplicate', note: `the formation model found memory ${target} says it` });
    if (decision === 'UPDATE' && target && store.replace(target, fields.text, embedding))
      return ok({ id: target, status: 'updated', ...note });
    if (decision === 'DELETE' && target) store.retire(target, 'superseded');
    const stored = store.insert({ ...fields, namespace: ns, embedding, trust: trustOf(fields.source) });
    return ok({
      id: stored,
      status: 'stored',
      ...(untrusted(fields.source) ? { trust: 'untrusted', source: fields.source } : {}),
      ...(decision === 'DELETE' && target ? { superseded: target } : {}),
      ...note,
    });
  });
}

async function update(args) {
  const { fields, redacted } = prepare({ text: args.text });
  if (!fields.text?.trim()) return refuse('not updated: the text is empty');
  const current = store.get(args.id);
  if (current?.status !== 'active') return refuse(`not updated: no active memory ${args.id}`);
  const why = refusal(fields.text, current.category);
  if (why) return refuse(`not updated: ${why}`);
  const embedding = await model.embed(fields.text);
  if (!store.write(() => store.replace(args.id, fields.text, embedding)))
    return refuse(`not updated: no active memory ${args.id}`);
  return ok({ id: String(args.id), status: 'updated', ...(redacted ? { redacted } : {}) });
}

function forget(args) {
  if (!store.write(() => store.forget(args.id))) return refuse(`not forgotten: no memory ${args.id}`);
  return ok({ id: String(args.id), status: 'forgotten' });
}

async function recall(args) {
  // a secret in a query goes to the provider no more than one in a memory (and none is stored to find)
  const query = scrub(String(args.query ?? ''), false).text;
  const found = rank(store.live(namespaceOf(args)), query, await model.embed(query));
  store.write(() => store.countRecalls(found.map((m) => m.id)));
  return ok({ results: found.map(shown), ids: found.map((m) => m.id) });
}

function curate(args) {
  const dry = args.dry_run === true || args.dry_run === 'true';
  const plan = store.write(() => {
    const p = curationPlan(store.live());
    if (!dry) for (const { victim, keep } of p) store.retire(victim.id, 'merged', keep.id);
    return p;
  });
  return ok({
    dry_run: dry,
    [dry ? 'would_merge' : 'merged']: plan.map(({ victim, keep }) => ({
      id: victim.id,
      text: victim.text,
      into: keep.id,
      into_text: keep.text,
    })),
  });
}

function expire() {
  const cutoff = Date.now() - retentionMs;
  const old = store.write(() => {
    const due = store.live().filter((m) => !m.pinned && Date.parse(m.updated_at) < cutoff);
    for (const m of due) store.retire(m.id, 'expired');
    return due;
  });
  return ok({ expired: old.map((m) => ({ id: m.id, text: m.text })), before: new Date(cutoff).toISOString() });
}

const HANDLERS = { remember, update, forget, recall, curate, expire };

const str = { type: 'string' };
// a memory of nothing is refused: the schema says so, so a client can tell before it calls
const text = { type: 'string', pattern: '\\S' };
const TOOLS = [
  {
    name: 'remember',
    description:
      'Store a durable fact. Secrets are redacted; run output, status chatter, musings and what workspace documents already say are refused; an exact duplicate is stored once.',
    inputSchema: {
      type: 'object',
      properties: { text, category: str, subject: str, source: str, namespace: str },
      required: ['text'],
    },
  },
  {
    name: 'update',
    description: 'Replace the text of a memory (the old text is not kept).',
    inputSchema: { type: 'object', properties: { id: str, text }, required: ['id', 'text'] },
  },
  {
    name: 'forget',
    description: 'Delete a memory everywhere.',
    inputSchema: { type: 'object', properties: { id: str }, required: ['id'] },
  },
  {
    name: 'recall',
    description: 'Search memories (of one project, when namespace names one); results best first.',
    inputSchema: { type: 'object', properties: { query: str, namespace: str }, required: ['query'] },
  },
  {
    name: 'curate',
    description: 'Merge near-duplicate memories into the best of each group; dry_run reports and changes nothing.',
    inputSchema: { type: 'object', properties: { dry_run: { type: 'boolean' } } },
  },
  {
    name: 'expire',
    description: 'Archive memories older than the retention period.',
    inputSchema: { type: 'object', properties: {} },
  },
];

const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');

async function handle(msg) {
  if (msg.id === undefined || msg.id === null) return; // a notification
  const reply = (result) => send({ jsonrpc: '2.0', id: msg.id, result });
  switch (msg.method) {
    case 'initialize':
      return reply({
        protocolVersion: msg.params?.protocolVersion ?? '2025-06-18',
        capabilities: { tools: {} },
        serverInfo: { name: 'memeval-reference', version: '1.0.0' },
      });
    case 'tools/list':
      return reply({ tools: TOOLS });
    case 'tools/call': {
      const handler = HANDLERS[msg.params?.name];
      if (!handler) return reply(refuse(`unknown tool ${msg.params?.name}`));
      try {
        return reply(await handler(msg.params?.arguments ?? {}));
      } catch (e) {
        return reply(refuse(`${msg.params.name} failed: ${e.message}`));
      }
    }
    case 'ping':
      return reply({});
    default:
      return send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: `method not found: ${msg.method}` } });
  }
}

// one request at a time, in order: a write waiting on the provider is not overtaken by the next
let queue = Promise.resolve();
let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buf += chunk;
  for (let nl = buf.indexOf('\n'); nl !== -1; nl = buf.indexOf('\n')) {
    const line = buf.slice(0, nl).trim();
    buf = buf.slice(nl + 1);
    if (!line) continue;
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } });
      continue;
    }
    queue = queue.then(() => handle(msg)).catch((e) => process.stderr.write(`reference: ${e.message}\n`));
  }
});

function shutdown() {
  store.close();
  process.exit(0);
}
process.stdin.on('end', () => queue.then(shutdown));
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, shutdown);
