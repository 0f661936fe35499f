// The hostile server's own command-line program (eval/hostile/hostile.mjs), declared as
// `cli: { memories: … }` by the hostile targets that meet the built-in command scenarios. Like
// eval/reference/cli.mjs it is the subset of the memories.sh CLI those scenarios call:
//
//   memories export --format json [--output <file>]   every live memory as JSON (to stdout without --output)
//   memories doctor --json [--local-only]             health checks of the store, with summary.failed
//   memories stats --json                             counts: total live memories, deleted ones
//
// It is honest over what the server really stored, in the server's own terms: it reads STORE
// (JSONL, or SQLite when it ends in .db) read-only, and a memory is live when the server's recall
// would return it. So a blackhole exports nothing, and soft-forget (whose recall still returns a
// forgotten memory) exports and counts it as live. The hostility shows through the CLI; the CLI
// adds none of its own. A missing or unreadable store is an error (exit 1) or failed checks,
// never an empty answer; any other command or flag is a usage error (exit 2).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const USAGE = 'usage: memories export --format json [--output <file>] | doctor --json [--local-only] | stats --json';
const mode = process.env.HOSTILE ?? 'honest';
const store = process.env.STORE;

function usage(why) {
  process.stderr.write(`memories (hostile): ${why}\n${USAGE}\n`);
  process.exit(2);
}

function fail(why) {
  process.stderr.write(`memories (hostile): ${why}\n`);
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

if (!store) fail('STORE is not set');
const sqlite = store.endsWith('.db');

/** The SQLite store opened read-only (memeval's own dependency, resolved from the package). */
async function openDb() {
  const { default: Database } = await import('better-sqlite3');
  return new Database(store, { readonly: true, fileMustExist: true });
}

/** Every row the server wrote, with `deleted` as a boolean. */
async function rows() {
  if (!existsSync(store)) throw new Error(`no store at ${store}`);
  if (!sqlite)
    return readFileSync(store, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  const db = await openDb();
  try {
    return db
      .prepare('SELECT * FROM memories ORDER BY rowid')
      .all()
      .map((r) => ({ ...r, deleted: Boolean(r.deleted) }));
  } finally {
    db.close();
  }
}

/** What the server's recall would return: soft-forget's recall still returns what it marked deleted. */
const isLive = (r) => mode === 'soft-forget' || !r.deleted;

async function read() {
  try {
    return await rows();
  } catch (e) {
    fail(`cannot read the store: ${e.message}`);
  }
}

async function exportCommand(argv) {
  const o = flags(argv, ['format', 'output'], []);
  if ((o.format ?? 'json') !== 'json') usage(`--format ${o.format}: only json is implemented`);
  const live = (await read()).filter(isLive);
  const doc = JSON.stringify(
    {
      version: '1.0',
      exported_at: new Date().toISOString(),
      memories: live.map((m) => ({
        id: m.id,
        content: m.text,
        category: m.category ?? null,
        created_at: m.at ?? m.updated_at ?? null,
      })),
    },
    null,
    2,
  );
  if (o.output === undefined) return process.stdout.write(doc + '\n');
  writeFileSync(o.output, doc + '\n');
  process.stdout.write(`Exported ${live.length} memories to ${o.output}\n`);
}

/** One check: pass, or fail with why; a check that throws fails with the error. */
async function check(id, name, run) {
  try {
    const why = await run();
    return { id, name, status: why ? 'fail' : 'pass', message: why ?? 'ok' };
  } catch (e) {
    return { id, name, status: 'fail', message: e.message };
  }
}

async function doctorCommand(argv) {
  const o = flags(argv, [], ['json', 'local-only']);
  if (!o.json) usage('doctor: only --json is implemented');
  const checks = [
    await check('db_file', 'Store file', () => (existsSync(store) ? undefined : `not found at ${store}`)),
  ];
  if (sqlite)
    checks.push(
      await check('schema_integrity', 'Schema integrity', async () => {
        const db = await openDb();
        try {
          const said = db.pragma('integrity_check').map((r) => r.integrity_check);
          if (said.length !== 1 || said[0] !== 'ok') return `PRAGMA integrity_check: ${said.join('; ')}`;
          return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'memories'").get()
            ? undefined
            : 'no memories table';
        } finally {
          db.close();
        }
      }),
    );
  else
    checks.push(
      await check('records', 'Store records', () => {
        const lines = readFileSync(store, 'utf8').split('\n').filter(Boolean);
        const bad = lines.filter((l) => {
          try {
            const r = JSON.parse(l);
            return typeof r?.id !== 'string' || typeof r?.text !== 'string';
          } catch {
            return true;
          }
        });
        return bad.length ? `${bad.length} of ${lines.length} line(s) are not a memory record` : undefined;
      }),
    );
  const count = (s) => checks.filter((c) => c.status === s).length;
  const failed = count('fail');
  process.stdout.write(
    JSON.stringify(
      { schemaVersion: '1.1', ok: failed === 0, summary: { passed: count('pass'), warned: 0, failed }, checks },
      null,
      2,
    ) + '\n',
  );
}

async function statsCommand(argv) {
  const o = flags(argv, [], ['json']);
  if (!o.json) usage('stats: only --json is implemented');
  const all = await read();
  const total = all.filter(isLive).length;
  process.stdout.write(JSON.stringify({ total, deleted: all.length - total }, null, 2) + '\n');
}

const COMMANDS = { export: exportCommand, doctor: doctorCommand, stats: statsCommand };
const [command, ...rest] = process.argv.slice(2);
if (!Object.hasOwn(COMMANDS, command ?? '')) usage(command ? `unknown command ${command}` : 'no command');
await COMMANDS[command](rest);
