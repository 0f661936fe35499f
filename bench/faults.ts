/**
 * Fault campaign (not a test; `npm run faults`): does a run keep its promise whatever happens?
 * The promise: a parseable report (marked for what happened), no fixture left, no process left,
 * a documented exit code; bad input is exit 3 naming file and field, with no stack trace.
 *
 *   npm run faults [-- --runs N] [--faulty-runs N] [--corpus N] [--parallel N] [--only signals,faulty,corpus]
 *
 * signals  N runs per kind (SIGINT, double SIGINT, SIGTERM, SIGHUP), each interrupted at a random moment
 * faulty   N runs against each misbehaving server in test/servers/faulty.mjs
 * corpus   at least N generated broken scenario and target files, through `validate` and (a sample) `run`
 *
 * Runs the built CLI (bin/memeval → dist/, what users run; `npm run faults` builds it first), or the
 * source through tsx with --from-source (tsx itself takes a second or two to start, during which a
 * signal kills node before memeval's first line runs). Each run has its own TMPDIR, so leftover
 * fixtures and processes are found by it (fixture dirs in it; processes whose environment names it).
 */
import { spawn, execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import JSON5 from 'json5';
import { catchesSighup } from '../test/helpers.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const FROM_SOURCE = process.argv.includes('--from-source');
/** the command and arguments that start the CLI */
const [CMD, ...CLI] = FROM_SOURCE
  ? [process.execPath, '--import', 'tsx', join(ROOT, 'src', 'cli', 'entry.ts')]
  : [join(ROOT, 'bin', 'memeval')];
if (!FROM_SOURCE && !existsSync(join(ROOT, 'dist', 'cli', 'entry.js'))) {
  console.error('bench/faults: dist/ is missing; run `npm run build` (or use --from-source)');
  process.exit(3);
}
const FAULTY = join(ROOT, 'test', 'servers', 'faulty.mjs');
const DOCUMENTED = new Set([0, 1, 2, 3, 130]);

const argv = process.argv.slice(2);
const flag = (name: string, dflt: number) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : dflt);
const RUNS = flag('--runs', 50);
const FAULTY_RUNS = flag('--faulty-runs', 5);
const CORPUS = flag('--corpus', 300);
const PARALLEL = flag('--parallel', 2);
const only = argv.includes('--only') ? argv[argv.indexOf('--only') + 1].split(',') : ['signals', 'faulty', 'corpus'];

const work = mkdtempSync(join(tmpdir(), 'memeval-faults-'));
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------- inputs ----------

function scenario(id: string, over: Record<string, unknown> = {}) {
  return {
    schema_version: 1,
    id,
    title: 't',
    description: 'd',
    deterministic: {
      well_behaved: [
        { op: 'remember', content: 'User prefers dark mode' },
        { op: 'recall', query: 'dark' },
      ],
      violation: { expectation: 'detect', steps: [{ op: 'remember', content: 'token sk_test_abcdef123456' }] },
    },
    assertions: [
      { kind: 'count', name: 'dark mode once', phase: 'both', contains: 'dark mode', op: 'eq', value: 1 },
      { kind: 'absent', name: 'no token', phase: 'both', text: 'sk_test_abcdef123456' },
      { kind: 'recall', name: 'recalls dark mode', phase: 'well-behaved', query: 'dark', contains: 'dark mode' },
    ],
    ...over,
  };
}

function target(name: string, fault: string, server: Record<string, unknown> = {}) {
  return {
    name,
    description: `the fault server in ${fault} mode`,
    server: {
      command: process.execPath,
      args: [FAULTY],
      env: { FAULT: fault, STORE: '{{data}}/store.jsonl' },
      startup_timeout_ms: 20000,
      call_timeout_ms: 8000,
      ...server,
    },
    store: { format: 'jsonl', path: '{{data}}/store.jsonl' },
    views: {
      memories:
        "SELECT line AS id, json_extract(json, '$.text') AS content, NULL AS category, NULL AS source, NULL AS subject, NULL AS created_at, 0 AS is_deleted FROM store.records",
    },
    ops: {
      remember: [{ tool: 'save', args: { text: '{{content}}' } }],
      recall: [{ tool: 'search', args: { query: '{{query}}' } }],
    },
  };
}

const write = (file: string, v: unknown) => (
  writeFileSync(file, typeof v === 'string' ? v : JSON.stringify(v, null, 2)),
  file
);

function scenarioDir(n: number): string {
  const dir = join(work, `sc-${n}`);
  if (existsSync(dir)) return dir;
  mkdirSync(dir, { recursive: true });
  for (let i = 1; i <= n; i++) write(join(dir, `s${i}.json`), scenario(`s${i}`));
  return dir;
}

function targetFile(name: string, fault: string, server: Record<string, unknown> = {}): string {
  const dir = join(work, 'targets');
  mkdirSync(dir, { recursive: true });
  return write(join(dir, `${name}.json5`), target(name, fault, server));
}

// ---------- one run and its aftermath ----------

interface Outcome {
  code: number | null;
  signal: string | null;
  report: 'parseable' | 'unparseable' | 'none';
  status?: string;
  fixtures: number;
  processes: number;
  stackTrace: boolean;
  ms: number;
  /** when the (first) signal was sent, ms after spawn */
  at?: number;
  /** whether memeval's signal handlers were installed when the first signal was sent */
  handled?: boolean;
}

/** Processes whose environment points TMPDIR into `tmp`: what this run started. */
function processesUnder(tmp: string): number[] {
  const out: number[] = [];
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      if (readFileSync(`/proc/${p}/environ`, 'latin1').includes(`TMPDIR=${tmp}/`)) out.push(Number(p));
    } catch {
      /* gone */
    }
  }
  return out;
}

async function runOnce(
  args: string[],
  interrupt?: { at: number; signals: NodeJS.Signals[]; gap: number },
): Promise<Outcome> {
  const dir = mkdtempSync(join(work, 'run-'));
  const tmp = join(dir, 'tmp');
  const out = join(dir, 'out');
  mkdirSync(tmp);
  const t0 = performance.now();
  const child = spawn(CMD, [...CLI, ...args, '--out', out], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1', TMPDIR: tmp },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-20000)));
  const exited = new Promise<{ code: number | null; signal: string | null }>((r) =>
    child.on('exit', (code, signal) => r({ code, signal })),
  );
  const hard = setTimeout(() => child.kill('SIGKILL'), 180000);
  let handled: boolean | undefined;
  if (interrupt) {
    void (async () => {
      await wait(interrupt.at);
      for (const [i, s] of interrupt.signals.entries()) {
        if (i) await wait(interrupt.gap);
        else handled = child.pid !== undefined && catchesSighup(child.pid);
        child.kill(s);
      }
    })();
  }
  const { code, signal } = await exited;
  clearTimeout(hard);
  await wait(300); // a straggler gets a moment to be counted fairly
  const leftovers = processesUnder(tmp);
  for (const pid of leftovers) {
    try {
      process.kill(pid, 'SIGKILL'); // the campaign cleans up after a run that did not
    } catch {
      /* gone */
    }
  }
  let report: Outcome['report'] = 'none';
  let status: string | undefined;
  const runs = existsSync(out) ? readdirSync(out) : [];
  if (runs.length) {
    try {
      status = JSON.parse(readFileSync(join(out, runs[0], 'report.json'), 'utf8')).status;
      report = 'parseable';
    } catch {
      report = 'unparseable';
    }
  }
  const fixtures = readdirSync(tmp).filter((f) => f.startsWith('memeval-')).length;
  const o = {
    code,
    signal,
    report,
    status,
    fixtures,
    processes: leftovers.length,
    stackTrace: /\n\s+at .*:\d+:\d+/.test(stderr),
    ms: Math.round(performance.now() - t0),
    at: interrupt ? Math.round(interrupt.at) : undefined,
    handled,
  };
  rmSync(dir, { recursive: true, force: true });
  return o;
}

async function pool<T, R>(items: T[], n: number, fn: (t: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i], i);
      }
    }),
  );
  return out;
}

function summarize(label: string, rs: Outcome[]) {
  const n = rs.length;
  const count = (f: (o: Outcome) => boolean) => rs.filter(f).length;
  const row = {
    kind: label,
    runs: n,
    report_parseable: count((o) => o.report === 'parseable'),
    report_unparseable: count((o) => o.report === 'unparseable'),
    no_run_dir: count((o) => o.report === 'none'),
    fixture_left: count((o) => o.fixtures > 0),
    process_left: count((o) => o.processes > 0),
    undocumented_exit: count((o) => o.signal !== null || !DOCUMENTED.has(o.code ?? -1)),
    // of those, killed by a signal sent while node was still starting, before memeval's first
    // line installed its handlers: no memeval code had run, so nothing could be left behind
    killed_before_handlers: count((o) => o.signal !== null && o.handled === false),
    killed_after_handlers: count((o) => o.signal !== null && o.handled !== false),
    killed_by_signal_sent_at_ms: rs
      .filter((o) => o.signal !== null)
      .map((o) => o.at)
      .join(' '),
    stack_trace: count((o) => o.stackTrace),
    exit_codes: [...new Set(rs.map((o) => (o.signal ? `sig:${o.signal}` : String(o.code))))].join(' '),
    median_ms: rs.map((o) => o.ms).sort((a, b) => a - b)[Math.floor(n / 2)],
  };
  console.log(JSON.stringify(row));
  return row;
}

// ---------- campaigns ----------

async function signals() {
  const sc = scenarioDir(4);
  const t = targetFile('steady', 'ok');
  // how long a whole run takes here, so the random moments cover start-up, cells, probes and the report
  const base = await runOnce(['run', '--scenarios', sc, '--target', t, '--workers', '2']);
  console.log(
    `# an uninterrupted run: exit ${base.code}, ${base.ms} ms; interrupts land uniformly in [0, ${base.ms}] ms`,
  );
  const kinds: [string, NodeJS.Signals[]][] = [
    ['SIGINT', ['SIGINT']],
    ['double SIGINT', ['SIGINT', 'SIGINT']],
    ['SIGTERM', ['SIGTERM']],
    ['SIGHUP', ['SIGHUP']],
  ];
  const rows = [];
  for (const [label, sigs] of kinds) {
    const rs = await pool(Array.from({ length: RUNS }), PARALLEL, () =>
      runOnce(['run', '--scenarios', sc, '--target', t, '--workers', '2'], {
        at: Math.random() * base.ms,
        signals: sigs,
        gap: 20 + Math.random() * 400,
      }),
    );
    rows.push(summarize(label, rs));
  }
  return rows;
}

async function faulty() {
  const sc = scenarioDir(2);
  const modes: [string, string, Record<string, unknown>][] = [
    ['crash at start', 'crash-at-start', {}],
    ['crash in the recall probe', 'crash-on-recall', {}],
    ['hang in the recall probe', 'slow-recall', { call_timeout_ms: 2000 }],
    ['70 MB message', 'big:70000000', {}],
    ['flood with no newline', 'flood', {}],
    ['log lines on stdout', 'noise', {}],
    ['30 MB of stderr', 'stderr:30000000', {}],
    ['daemon in its own session', 'daemon', {}],
  ];
  const rows = [];
  for (const [label, fault, server] of modes) {
    const t = targetFile(`faulty-${rows.length}`, fault, server);
    const rs = await pool(Array.from({ length: FAULTY_RUNS }), PARALLEL, () =>
      runOnce(['run', '--scenarios', sc, '--target', t, '--workers', '2']),
    );
    rows.push(summarize(label, rs));
  }
  return rows;
}

/** Broken inputs, each with the field its problem should name (undefined: the file itself is the problem). */
function corpus(): { file: string; field?: RegExp }[] {
  const dir = join(work, 'corpus');
  const sdir = join(dir, 'scenarios');
  const tdir = join(dir, 'targets');
  mkdirSync(sdir, { recursive: true });
  mkdirSync(tdir, { recursive: true });
  const out: { file: string; field?: RegExp }[] = [];
  let k = 0;
  const sc = (over: Record<string, unknown>, field: RegExp, raw?: (s: string) => string) => {
    const id = `c${++k}`;
    const text = JSON.stringify(scenario(id, over), null, 2);
    out.push({ file: write(join(sdir, `${id}.json`), raw ? raw(text) : text), field });
  };
  const tg = (mutate: (d: Record<string, any>) => void, field: RegExp) => {
    const name = `t${++k}`;
    const d = target(name, 'ok') as Record<string, any>;
    mutate(d);
    out.push({ file: write(join(tdir, `${name}.json5`), d), field });
  };
  const deep = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
  for (const n of [65, 100, 1000, 5000, 20000, 100000])
    sc(
      { deterministic: { well_behaved: [{ op: 'tool', tool: 'save', args: 'DEEP' }], violation: null } },
      /deterministic\.well_behaved|nested/,
      (s) => s.replace('"DEEP"', deep(n)),
    );
  for (const p of [
    '.',
    './',
    '',
    'a/',
    'a\u0000b',
    'x'.repeat(256),
    `${'d/'.repeat(600)}f`,
    '\u0001ctl',
    '..',
    '../escape',
    '/etc/passwd',
    'a/../../b',
  ])
    sc({ setup: { files: [{ path: p, content: 'x' }] } }, /setup\.files\[0\]\.path/);
  for (const [a, b] of [
    ['notes', 'notes/a.md'],
    ['x/y', 'x'],
    ['same.md', 'same.md'],
    ['a/b/c', 'a/b'],
  ])
    sc(
      {
        setup: {
          files: [
            { path: a, content: '1' },
            { path: b, content: '2' },
          ],
        },
      },
      /setup\.files\[1\]\.path/,
    );
  // schema: every top-level field removed, retyped or misspelt
  for (const f of ['schema_version', 'id', 'title', 'description', 'deterministic', 'assertions'])
    sc({ [f]: undefined }, new RegExp(f === 'schema_version' ? 'schema_version' : `${f}|\\(top level\\)`));
  for (const [f, v] of [
    ['schema_version', 2],
    ['id', 'Bad Id'],
    ['title', ''],
    ['tags', 'x'],
    ['assertions', []],
    ['assertions', {}],
    ['real_model', 3],
    ['setup', []],
  ] as const)
    sc({ [f]: v }, new RegExp(f));
  for (const f of ['titel', 'assertion', 'determinstic', 'setupp', 'real-model']) sc({ [f]: 1 }, new RegExp(f));
  const steps = [
    [{ op: 'remembr', content: 'x' }, /well_behaved\[0\]/],
    [{ op: 'remember' }, /well_behaved\[0\]/],
    [{ op: 'update', memory: '$ref:nope', content: 'x' }, /well_behaved\[0\]/],
    [{ op: 'forget', memory: '$ref:ghost' }, /well_behaved\[0\]/],
    [{ op: 'recall' }, /well_behaved\[0\]/],
    [{ op: 'tool' }, /well_behaved\[0\]/],
    [{ op: 'remember', content: 'x', ref: '9bad' }, /well_behaved\[0\]\.ref/],
    [{ op: 'remember', content: 'x', extra: 1 }, /well_behaved\[0\]\.extra/],
    ['not a step', /well_behaved\[0\]/],
    [null, /well_behaved\[0\]/],
  ] as const;
  for (const [step, field] of steps) sc({ deterministic: { well_behaved: [step], violation: null } }, field as RegExp);
  const assertions = [
    [{ kind: 'cont', name: 'x', phase: 'both' }, /assertions\[0\]/],
    [{ kind: 'count', name: 'x', phase: 'both', contains: 'a', op: 'equal', value: 1 }, /assertions\[0\]\.op/],
    [{ kind: 'count', name: 'x', phase: 'sometimes', contains: 'a', op: 'eq', value: 1 }, /assertions\[0\]\.phase/],
    [{ kind: 'recall', name: 'x', phase: 'both', query: 'q' }, /assertions\[0\]/],
    [{ kind: 'absent', name: 'x', phase: 'both' }, /assertions\[0\]\.text/],
    [{ kind: 'called', name: 'x', phase: 'both', op: 'eq', value: 1 }, /assertions\[0\]/],
    [{ kind: 'transcript', name: 'x', phase: 'both', contains: 'a' }, /assertions\[0\]\.phase/],
    [{ kind: 'count', name: 'x', phase: 'violation', contains: 'a', op: 'eq', value: 1 }, /assertions/],
  ] as const;
  for (const [a, field] of assertions)
    sc(
      { assertions: [a], deterministic: { well_behaved: [{ op: 'remember', content: 'x' }], violation: null } },
      field as RegExp,
    );
  // JSON5 syntax: the valid scenario cut at many places, and a few classic slips
  const valid = JSON.stringify(scenario('cut'), null, 2);
  for (let i = 0; i < 90; i++) {
    const at = 1 + Math.floor(((i + 0.5) / 90) * (valid.length - 2));
    sc({}, /:\d+:\d+/, () => valid.slice(0, at));
  }
  for (const slip of [
    (s: string) => s.replace('"title"', 'title:: '),
    (s: string) => s.replace(/,\n/, ',,\n'),
    (s: string) => s.replace('{', '['),
    (s: string) => `${s}}`,
    () => '',
    () => '   ',
    () => 'null',
    () => '[]',
    () => '42',
  ])
    sc({}, /:\d+:\d+|\(top level\)|JSON5/, slip);
  // targets
  const targetCases: [(d: Record<string, any>) => void, RegExp][] = [
    [(d) => (d.views.memories = 'SELECT nope FROM store.records'), /views\.memories/],
    [(d) => (d.views.memories = 'SELEC 1'), /views\.memories/],
    [(d) => (d.views.memories = 'SELECT 1 AS id'), /views\.memories/],
    [(d) => (d.views.memories += "; ATTACH DATABASE '/tmp/x.db' AS o"), /views\.memories/],
    [(d) => (d.views.memories = "ATTACH DATABASE '/etc/passwd' AS o"), /views\.memories/],
    [(d) => (d.views.memories = 'DELETE FROM store.records'), /views\.memories/],
    [
      (d) => (d.views.memories = 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r) SELECT n AS id FROM r'),
      /views\.memories/,
    ],
    [(d) => (d.views.extra = { h: 'PRAGMA writable_schema=1' }), /views\.extra\.h/],
    [
      (d) => ((d.store = { format: 'sqlite', path: '{{data}}/m.db' }), (d.views.memories = 'SELECT id, FROM store.m')),
      /views\.memories/,
    ],
    [(d) => (d.store.path = '/etc/passwd'), /store\.path/],
    [(d) => (d.store.path = '{{data}}/../../etc/passwd'), /store\.path/],
    [(d) => (d.store.path = 'relative.db'), /store\.path/],
    [(d) => (d.store.path = '{{dat}}/m.jsonl'), /store\.path/],
    [(d) => (d.server.env.X = '{{hom}}/x'), /server\.env\.X/],
    [(d) => (d.server.args = ['{{project|upper}}']), /server\.args\[0\]/],
    [(d) => (d.ops.remember[0].args.text = '{{contnet}}'), /ops\.remember\[0\]\.args\.text/],
    [(d) => (d.ops.remember[0].args.text = '{{content|upper}}'), /ops\.remember\[0\]\.args\.text/],
    [(d) => (d.ops.recall[0].args.query = '{{content}}'), /ops\.recall\[0\]\.args\.query/],
    [(d) => (d.ops.remember[0].capture_id = '([a-z'), /ops\.remember\[0\]\.capture_id/],
    [(d) => (d.ops.remember[0].capture_id = '^(([\\s\\S])*)*Z$'), /ops\.remember\[0\]\.capture_id/],
    [(d) => (d.ops.remember[0].capture_id = '(a+)+$'), /ops\.remember\[0\]\.capture_id/],
    [(d) => (d.ops.remember[0].capture_id = '(\\w+\\s?)*$'), /ops\.remember\[0\]\.capture_id/],
    [(d) => (d.ops.remembr = d.ops.remember), /ops\.remembr/],
    [(d) => (d.ops.remember = []), /ops\.remember/],
    [(d) => (d.name = 'Other Name'), /name/],
    [(d) => (d.name = 'other'), /name/],
    [(d) => delete d.store, /store/],
    [(d) => (d.store.format = 'csv'), /store\.format/],
    [(d) => (d.server.max_message_bytes = 5), /server\.max_message_bytes/],
    [(d) => (d.server.call_timeout_ms = -1), /server\.call_timeout_ms/],
    [(d) => (d.serverr = {}), /serverr/],
    [(d) => (d.ops.remember[0].args = { a: JSON.parse(deep(200)) }), /ops\.remember|nested/],
  ];
  for (const [m, f] of targetCases) tg(m, f);
  // the file itself is the problem
  const special = (name: string, make: (p: string) => void) => {
    const p = join(sdir, name);
    make(p);
    out.push({ file: p });
  };
  special('fifo.json', (p) => execFileSync('mkfifo', [p]));
  special('zero.json', (p) => symlinkSync('/dev/zero', p));
  special('random.json', (p) => symlinkSync('/dev/urandom', p));
  special('dangling.json', (p) => symlinkSync(join(sdir, 'nowhere'), p));
  special('dir.json', (p) => mkdirSync(p));
  special('huge.json', (p) => writeFileSync(p, `{"pad": "${'x'.repeat(5 * 1024 * 1024)}"}`));
  special('nul.json', (p) => writeFileSync(p, '{\u0000}'));
  // top up with random single-character corruptions of the valid scenario until the corpus is big enough
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  while (out.length < CORPUS) {
    const at = Math.floor(rnd() * valid.length);
    const ch = '{}[]:,"\''[Math.floor(rnd() * 8)];
    const id = `c${++k}`;
    const text = valid.replace('"cut"', `"${id}"`);
    const broken = text.slice(0, at) + ch + text.slice(at + 1);
    if (broken === text || parses(broken)) continue; // still valid JSON5: not a broken file
    out.push({ file: write(join(sdir, `${id}.json`), broken), field: /:\d+:\d+|: [a-z_[\].0-9]+: |\(top level\)/ });
  }
  return out;
}

function parses(text: string): boolean {
  try {
    JSON5.parse(text);
    return true;
  } catch {
    return false;
  }
}

async function corpusCampaign() {
  const files = corpus();
  const byFile = new Map<string, string[]>();
  let stackTraces = 0;
  // validate in batches: each problem line is "error: <file>[:line:col]: <field>: <message>"
  for (let i = 0; i < files.length; i += 60) {
    const batch = files.slice(i, i + 60);
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const c = spawn(CMD, [...CLI, 'validate', ...batch.map((f) => f.file)], {
        cwd: ROOT,
        env: { ...process.env, NO_COLOR: '1' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      c.stderr.on('data', (d) => (stderr += d));
      const t = setTimeout(() => c.kill('SIGKILL'), 120000);
      c.on('exit', (code) => (clearTimeout(t), resolve({ code, stderr })));
    });
    if (/\n\s+at .*:\d+:\d+/.test(r.stderr)) stackTraces++;
    if (r.code !== 3) console.log(`# a validate batch exited ${r.code}: ${r.stderr.slice(-600)}`);
    if (process.env.FAULTS_DEBUG)
      console.log(
        `# batch ${i}: exit ${r.code}, ${r.stderr.split('\n').length} lines, first ${batch[0].file}, last ${batch[batch.length - 1].file}`,
      );
    for (const line of r.stderr.split('\n')) {
      const f = batch.find((x) => line.startsWith(`error: ${x.file}:`));
      if (f) byFile.set(f.file, [...(byFile.get(f.file) ?? []), line.slice(`error: ${f.file}`.length)]);
    }
  }
  let named = 0;
  let fileLevel = 0;
  const missed: string[] = [];
  for (const f of files) {
    const lines = byFile.get(f.file) ?? [];
    if (!f.field) {
      if (lines.length) fileLevel++;
      else missed.push(`${basename(f.file)}: no problem reported`);
      continue;
    }
    if (lines.some((l) => f.field!.test(l))) named++;
    else missed.push(`${basename(f.file)}: ${lines[0] ?? 'no problem reported'}`.slice(0, 200));
  }
  // a sample through `run`: exit 3 before anything runs
  const sample = files.filter((_, i) => i % 15 === 0).slice(0, flag('--run-sample', 20));
  let runExit3 = 0;
  for (const f of sample) {
    const isTarget = f.file.includes(`${join('corpus', 'targets')}`);
    const sc = scenarioDir(1);
    const args = isTarget
      ? ['run', '--scenarios', sc, '--target', f.file]
      : ['run', '--scenarios', join(work, 'corpus', 'scenarios'), '--target', targetFile('steady', 'ok')];
    const o = await runOnce(args);
    if (o.code === 3 && o.report === 'none' && !o.stackTrace && o.fixtures === 0 && o.processes === 0) runExit3++;
  }
  const row = {
    kind: 'corpus',
    files: files.length,
    exit3_file_and_field: named,
    exit3_file_level: fileLevel,
    with_field_expected: files.filter((f) => f.field).length,
    not_named: missed.length,
    stack_traces: stackTraces,
    run_sample: sample.length,
    run_sample_exit3_nothing_ran: runExit3,
  };
  console.log(JSON.stringify(row));
  for (const m of missed.slice(0, 15)) console.log(`#   missed ${m}`);
  return row;
}

try {
  const results: unknown[] = [];
  if (only.includes('signals')) results.push(...(await signals()));
  if (only.includes('faulty')) results.push(...(await faulty()));
  if (only.includes('corpus')) results.push(await corpusCampaign());
  console.log(`# ${results.length} rows`);
} finally {
  if (argv.includes('--keep')) console.log(`# kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
