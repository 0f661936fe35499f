// The reference server's own command-line program, declared as `cli: { memories: … }` in
// reference.json5. It is the subset of the memories.sh CLI (`memories`, @memories.sh/cli) that
// the built-in command scenarios call, and nothing more:
//
//   memories export --format json [--output <file>]   every live memory as JSON (to stdout without --output)
//   memories doctor --json [--local-only]             health checks of the store, with summary.failed
//   memories stats --json                             counts: total live memories, retired ones
//
// It reads STORE (the server's SQLite file) read-only and never creates it: a missing or
// unreadable store is an error (export, stats: exit 1) or failed checks (doctor), never an empty
// answer. Live means status 'active', as the server's recall and the declaration's view say;
// expired, superseded and merged rows are kept by the server but are not live. Any other command
// or flag is a usage error (exit 2): what is not here, no scenario may rely on.
import { existsSync, writeFileSync } from 'node:fs';
import { SCHEMA, STATUSES } from './store.mjs';

// memeval's own dependency, resolved from the package this file ships in
const { default: Database } = await import('better-sqlite3');

const USAGE = 'usage: memories export --format json [--output <file>] | doctor --json [--local-only] | stats --json';

function usage(why) {
  process.stderr.write(`memories (reference): ${why}\n${USAGE}\n`);
  process.exit(2);
}

function fail(why) {
  process.stderr.write(`memories (reference): ${why}\n`);
  process.exit(1);
}

/** The flags of one command: `--name value` for those that take a value, `--name` for switches; any other is a usage error. */
function flags(argv, valued, switches) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i].replace(/^--/, '');
    if (!argv[i].startsWith('--')) usage(`unexpected argument ${JSON.stringify(argv[i])}`);
    else if (valued.includes(name)) {
      if (i + 1 >= argv.length) usage(`--${name} needs a value`);
      out[name] = argv[++i];
    } else if (switches.includes(name)) out[name] = true;
    else usage(`unknown flag --${name}`);
  }
  return out;
}

const store = process.env.STORE;
if (!store) fail('STORE is not set (the SQLite file the server keeps memories in)');

/** The store opened read-only; it must already exist (the server made it). */
function open() {
  if (!existsSync(store)) throw new Error(`no store at ${store}`);
  return new Database(store, { readonly: true, fileMustExist: true });
}

function withStore(fn) {
  let db;
  try {
    db = open();
    return fn(db);
  } catch (e) {
    fail(`cannot read the store: ${e.message}`);
  } finally {
    db?.close();
  }
}

const live = (db) =>
  db
    .prepare("SELECT id, text, category, subject, source, created_at FROM memories WHERE status = 'active' ORDER BY id")
    .all();

function exportCommand(argv) {
  const o = flags(argv, ['format', 'output'], []);
  if ((o.format ?? 'json') !== 'json') usage(`--format ${o.format}: only json is implemented`);
  const memories = withStore(live);
  const doc = JSON.stringify(
    {
      version: '1.0',
      exported_at: new Date().toISOString(),
      memories: memories.map((m) => ({
        id: String(m.id),
        content: m.text,
        category: m.category,
        subject: m.subject,
        source: m.source,
        created_at: m.created_at,
      })),
    },
    null,
    2,
  );
  if (o.output === undefined) return process.stdout.write(doc + '\n');
  writeFileSync(o.output, doc + '\n');
  process.stdout.write(`Exported ${memories.length} memories to ${o.output}\n`);
}

/** The columns (name, type, not null, default, primary key) a CREATE TABLE gives, to compare a store against the server's own. */
function columns(db) {
  return db
    .prepare('PRAGMA table_info(memories)')
    .all()
    .map(
      (c) =>
        `${c.name} ${c.type}${c.notnull ? ' NOT NULL' : ''}${c.dflt_value !== null ? ` DEFAULT ${c.dflt_value}` : ''}${c.pk ? ' PK' : ''}`,
    );
}

/** One check: pass, or fail with why; a check that throws fails with the error. */
function check(id, name, run) {
  try {
    const why = run();
    return { id, name, status: why ? 'fail' : 'pass', message: why ?? 'ok' };
  } catch (e) {
    return { id, name, status: 'fail', message: e.message };
  }
}

function doctorCommand(argv) {
  const o = flags(argv, [], ['json', 'local-only']);
  if (!o.json) usage('doctor: only --json is implemented');
  let db;
  const checks = [check('db_file', 'Database file', () => (existsSync(store) ? undefined : `not found at ${store}`))];
  checks.push(
    check('db_connection', 'Database connection', () => {
      db = open();
      db.prepare('SELECT 1').get();
    }),
  );
  // without a connection the checks below could not look: each fails, none passes unchecked
  const needDb = () => {
    if (!db) throw new Error('not checked: the store could not be opened');
    return db;
  };
  checks.push(
    check('schema_integrity', 'Schema integrity', () => {
      const rows = needDb().pragma('integrity_check');
      const said = rows.map((r) => r.integrity_check);
      return said.length === 1 && said[0] === 'ok' ? undefined : `PRAGMA integrity_check: ${said.join('; ')}`;
    }),
    check('schema', 'Memories table', () => {
      const expected = new Database(':memory:');
      expected.exec(SCHEMA);
      const [want, have] = [columns(expected), columns(needDb())];
      expected.close();
      if (!have.length) return 'no memories table';
      const missing = want.filter((c) => !have.includes(c));
      const extra = have.filter((c) => !want.includes(c));
      return missing.length || extra.length
        ? `not the server's schema: ${[...missing.map((c) => `missing ${c}`), ...extra.map((c) => `unexpected ${c}`)].join(', ')}`
        : undefined;
    }),
    check('statuses', 'Memory statuses', () => {
      const bad = needDb()
        .prepare(
          `SELECT status, COUNT(*) AS n FROM memories WHERE status NOT IN (${STATUSES.map(() => '?').join(', ')}) GROUP BY status`,
        )
        .all(...STATUSES);
      return bad.length
        ? `rows with an unknown status: ${bad.map((b) => `${JSON.stringify(b.status)} × ${b.n}`).join(', ')}`
        : undefined;
    }),
  );
  db?.close();
  const count = (s) => checks.filter((c) => c.status === s).length;
  const failed = count('fail');
  process.stdout.write(
    JSON.stringify(
      {
        schemaVersion: '1.1',
        generatedAt: new Date().toISOString(),
        ok: failed === 0,
        summary: { passed: count('pass'), warned: 0, failed },
        checks,
      },
      null,
      2,
    ) + '\n',
  );
}

function statsCommand(argv) {
  const o = flags(argv, [], ['json']);
  if (!o.json) usage('stats: only --json is implemented');
  const { total, retired, breakdown } = withStore((db) => ({
    total: db.prepare("SELECT COUNT(*) AS n FROM memories WHERE status = 'active'").get().n,
    retired: db.prepare("SELECT COUNT(*) AS n FROM memories WHERE status <> 'active'").get().n,
    breakdown: db
      .prepare(
        "SELECT category, COUNT(*) AS count FROM memories WHERE status = 'active' GROUP BY category ORDER BY category",
      )
      .all(),
  }));
  process.stdout.write(JSON.stringify({ total, retired, breakdown }, null, 2) + '\n');
}

const COMMANDS = { export: exportCommand, doctor: doctorCommand, stats: statsCommand };
const [command, ...rest] = process.argv.slice(2);
if (!Object.hasOwn(COMMANDS, command ?? '')) usage(command ? `unknown command ${command}` : 'no command');
COMMANDS[command](rest);
