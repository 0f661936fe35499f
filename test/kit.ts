/**
 * The test kit: one way to run memeval on inline scenarios and targets and get back the report,
 * read from the file the run wrote and checked against the report schema (as `view`, `diff` and
 * `merge` read it), with its cells typed.
 *
 * `runInline(t, { scenarios, targets, config })` runs in this process through the API (`run()`),
 * for tests about verdicts; `mode: 'cli'` spawns `memeval run` with the same settings as flags,
 * for tests about the command line, exit codes, printing, signals and processes. Builders for the
 * targets tests declare (`hostileTarget`, `faultyTarget`, `targetFile`) and the scenarios they
 * write (`scenario`, `scenarioFolder`) live here too, so a declaration is written once.
 *
 * An in-process run must leave this process as it found it (the next test runs in it): the kit
 * fails a run that changed the environment, the working directory, the process's signal or
 * exit handlers or its exit code.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Options } from 'execa';
// the API's run() is imported when a test first runs in process: loading it costs a CLI-only file seconds
import type { RunConfigInput, RunResponse } from '../src/index.js';
import { REPORT_SCHEMA_VERSION, reportSchema, type CellResult, type Report } from '../src/core/results.js';
import type { RunConfigKey } from '../src/core/config.js';
import { readReport } from '../src/report/reader.js';
import { MemevalError, InputError } from '../src/util/errors.js';
import { memeval, ROOT, scenario, tempDir, timeLimit, writeJson } from './helpers.ts';

export { faultyDecl, faultyTarget, faultyTargetWithout, FAULTY } from './faulty.ts';
export { scenario, tempDir, timeLimit, writeJson } from './helpers.ts';

type T = { after: (fn: () => void) => void };
/**
 * A report as a run writes it: the schema checks it, and types the fields it passes through
 * undeclared (the gate, repeat statistics) as the API returns them.
 */
export type KitReport = RunResponse['report'];

/** A scenario or target declaration as a test writes it (the loader checks it, not the kit). */
export type Decl = Record<string, unknown>;

/** The run settings a test gives; the kit fills scenariosDir, targets and outDir. */
export type InlineConfig = Omit<RunConfigInput, 'scenariosDir' | 'targets' | 'outDir'>;

export interface InlineOptions {
  /** scenarios to write into a folder of their own (file `<id>.json5`), or a folder to use as it is */
  scenarios?: readonly Decl[] | string;
  /** targets: a name or a declaration file, or a declaration to write as `<name>.json5` */
  targets?: readonly (string | Decl)[];
  /** every other setting, as the API takes it (the CLI mode turns each into its flag) */
  config?: InlineConfig;
  /** the folder runs are written under (default: a temp dir of the test); give one to run twice into it */
  out?: string;
  /** environment for the run; in process, set for the run and put back after */
  env?: Record<string, string>;
}

export interface CliOptions extends InlineOptions {
  mode: 'cli';
  /** flags after the settings' (e.g. --json, --reporter markdown) */
  args?: string[];
  /** execa options for the spawn (its time limit, a buffer: false) */
  spawn?: Options;
}
export interface ApiOptions extends InlineOptions {
  mode?: 'api';
}

/** What every run gives back. The report accessors throw, with the run's output, when no report was written. */
export interface InlineRun {
  exitCode: number;
  /** the folder runs are written under */
  out: string;
  /** the folder the inline scenarios were written to (or the one given) */
  scenariosDir: string | undefined;
  /** the target files and names as given to the run */
  targets: string[];
  /** the run's report.json, when it wrote one */
  reportPath: string | undefined;
  /** its run directory (cells' cell_dir are relative to it) */
  runDir: string | undefined;
  /** report.json as written, checked against the report schema and its schema_version */
  readonly report: KitReport;
  readonly results: CellResult[];
  /** the one cell of this scenario and phase (and target, when the run has several) */
  cell(scenario: string, phase: string, target?: string): CellResult;
  /** every line it printed or logged: for assertion messages */
  output: string;
}
export interface CliRun extends InlineRun {
  mode: 'cli';
  stdout: string;
  stderr: string;
}
export interface ApiRun extends InlineRun {
  mode: 'api';
  /** the run's progress lines (the CLI prints them dimmed) */
  log: string[];
  /** the error the run ended with, as the CLI would report it (exit 3 for bad input, …) */
  error: MemevalError | undefined;
}

/**
 * Run memeval on inline scenarios and targets: in process through the API (default), or as the
 * CLI with `mode: 'cli'`. Either way the settings are the API's, the report is read back from
 * its file through the schema, and the result says how the run ended.
 */
export function runInline(t: T, o: CliOptions): Promise<CliRun>;
export function runInline(t: T, o?: ApiOptions): Promise<ApiRun>;
export async function runInline(t: T, o: CliOptions | ApiOptions = {}): Promise<CliRun | ApiRun> {
  const dir = tempDir(t, 'memeval-kit-');
  const scenariosDir =
    typeof o.scenarios === 'string' ? o.scenarios : o.scenarios ? scenarioFolder(dir, o.scenarios) : undefined;
  const targets = (o.targets ?? []).map((x) => (typeof x === 'string' ? x : targetFile(dir, x)));
  const out = o.out ?? join(dir, 'runs');
  const before = runDirs(out);
  const settings: RunConfigInput = {
    ...o.config,
    ...(scenariosDir ? { scenariosDir } : {}),
    ...(targets.length ? { targets } : {}),
    outDir: out,
  };
  if (o.mode === 'cli') {
    const r = await memeval(['run', ...flagsOf(settings), ...(o.args ?? [])], {
      timeout: timeLimit(240_000),
      ...o.spawn,
      env: { NO_COLOR: '1', FORCE_COLOR: '0', ...o.env },
    });
    const stdout = String(r.stdout ?? '');
    const stderr = String(r.stderr ?? '');
    return ended({ mode: 'cli', stdout, stderr }, r.exitCode ?? -1, out, before, `${stdout}\n${stderr}`, {
      scenariosDir,
      targets,
    });
  }
  const log: string[] = [];
  let error: MemevalError | undefined;
  let exitCode: number;
  const restore = inProcess(o.env ?? {});
  const { run } = await import('../src/app/api.js');
  try {
    exitCode = (await run({ ...settings, log: (l) => log.push(l) })).exitCode;
  } catch (e) {
    // as the CLI's main() ends: an error raised on purpose is an exit code, anything else a bug
    if (!(e instanceof MemevalError)) throw e;
    error = e;
    exitCode = e.exit;
  } finally {
    restore();
  }
  const problems = error instanceof InputError ? error.problems : error ? [error.message] : [];
  log.push(...problems.map((p) => `error: ${p}`));
  return ended({ mode: 'api', log, error }, exitCode, out, before, log.join('\n'), { scenariosDir, targets });
}

/**
 * The run directory a run added under `out`, and its report read through the schema when first
 * asked for (`mode` fields in the same object: spreading one with getters would read them).
 */
function ended<M extends object>(
  mode: M,
  exitCode: number,
  out: string,
  before: string[],
  output: string,
  inputs: { scenariosDir: string | undefined; targets: string[] },
): InlineRun & M {
  const added = runDirs(out).filter((d) => !before.includes(d));
  assert.ok(added.length <= 1, `one run wrote ${added.length} run directories under ${out}: ${added.join(', ')}`);
  const runDir = added.length ? join(out, added[0]) : undefined;
  const reportPath = runDir && existsSync(join(runDir, 'report.json')) ? join(runDir, 'report.json') : undefined;
  let report: KitReport | undefined;
  const theReport = (): KitReport => {
    if (!reportPath) assert.fail(`the run wrote no report (exit ${exitCode}):\n${output}`);
    return (report ??= readReportFile(reportPath));
  };
  return {
    ...mode,
    exitCode,
    out,
    ...inputs,
    reportPath,
    runDir,
    output,
    get report() {
      return theReport();
    },
    get results() {
      return theReport().results;
    },
    cell: (s, phase, target) => cellOf(theReport(), s, phase, target),
  };
}

/** The one cell of a scenario and phase (and target): none or several is a test failure naming the cells there are. */
export function cellOf(report: Report, s: string, phase: string, target?: string): CellResult {
  const found = report.results.filter(
    (c) => c.scenario === s && c.phase === phase && (target === undefined || c.target === target),
  );
  assert.equal(
    found.length,
    1,
    `${found.length} cells of ${s} ${phase}${target ? ` on ${target}` : ''}; the report has ${report.results
      .map((c) => c.cell_id)
      .join(', ')}`,
  );
  return found[0];
}

const runDirs = (out: string): string[] =>
  existsSync(out) ? readdirSync(out).filter((d) => !d.startsWith('.') && !d.endsWith('.json')) : [];

/** What an in-process run may not change for the tests after it. */
const WATCHED_EVENTS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'exit', 'beforeExit', 'uncaughtException'] as const;

/**
 * Variables an in-process run cannot have for itself alone: memeval reads them once per process
 * (the isolation probes), or in its judge process, which lives across runs.
 */
const NOT_PER_RUN = ['MEMEVAL_PID_NAMESPACE', 'MEMEVAL_NETNS', 'MEMEVAL_REGEX_TIMEOUT_MS'];

/**
 * Set `env` for an in-process run; the returned function puts it back and fails when the run
 * changed the process: its environment, working directory, exit code or signal and exit handlers.
 */
function inProcess(env: Record<string, string>): () => void {
  const once = Object.keys(env).filter((k) => NOT_PER_RUN.includes(k));
  assert.deepEqual(once, [], `${once.join(', ')}: not settable for one in-process run; run with mode: 'cli'`);
  const saved = { ...process.env };
  Object.assign(process.env, env);
  const cwd = process.cwd();
  const exitCode = process.exitCode;
  const listeners = WATCHED_EVENTS.map((e) => process.listenerCount(e));
  return () => {
    const expected: Record<string, string | undefined> = { ...saved, ...env };
    const changed = Object.keys({ ...expected, ...process.env }).filter((k) => process.env[k] !== expected[k]);
    for (const k of Object.keys(env)) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
    assert.deepEqual(changed, [], 'an in-process run changed the environment');
    assert.equal(process.cwd(), cwd, 'an in-process run changed the working directory');
    assert.equal(process.exitCode, exitCode, 'an in-process run set the exit code');
    assert.deepEqual(
      WATCHED_EVENTS.map((e) => process.listenerCount(e)),
      listeners,
      `an in-process run left handlers on ${WATCHED_EVENTS.join(', ')}`,
    );
  };
}

/**
 * The `memeval run` flag of every run setting: a setting added to the config without one here
 * does not compile, so the CLI mode can say whatever the API mode can.
 */
const FLAG: Record<RunConfigKey, string> = {
  scenariosDir: '--scenarios',
  scenarioIds: '--scenario',
  tags: '--tag',
  targets: '--target',
  workers: '--workers',
  keep: '--keep',
  outDir: '--out',
  install: '--install',
  iUnderstandModelCost: '--i-understand-model-cost',
  reporters: '--reporter',
  shard: '--shard',
  shardDurations: '--shard-durations',
  retries: '--retries',
  lastFailed: '--last-failed',
  intendedTargets: '--intended-targets',
  'agent.turn': '--agent-turn',
  'agent.name': '--agent',
  'agent.model': '--model',
  'agent.baseUrl': '--base-url',
  'agent.policy': '--policy',
  'agent.repeat': '--repeat',
  'agent.maxTurns': '--max-turns',
  'agent.promptTimeoutMs': '--prompt-timeout',
  'agent.mcpTimeoutMs': '--mcp-timeout',
  'judge.model': '--judge-model',
  'judge.baseUrl': '--judge-base-url',
  'judge.protocol': '--judge-protocol',
  'judge.level': '--judge-level',
  'judge.minConfidence': '--judge-min-confidence',
  'gate.baseline': '--baseline',
  'gate.expectedFailures': '--expected-failures',
  'gate.failOn': '--fail-on',
};

/** The flags that say what the settings say. */
export function flagsOf(settings: RunConfigInput): string[] {
  const args: string[] = [];
  const add = (key: string, v: unknown) => {
    const flag = FLAG[key as RunConfigKey];
    assert.ok(flag, `no memeval run flag for the setting ${key}`);
    if (v === undefined || v === false) return;
    if (v === true) return args.push(flag);
    if (Array.isArray(v)) return args.push(flag, v.join(','));
    if (key === 'shard') {
      const s = v as { index: number; count: number };
      return args.push(flag, `${s.index}/${s.count}`);
    }
    assert.ok(typeof v === 'string' || typeof v === 'number', `${key}: a ${typeof v} has no flag form`);
    args.push(flag, String(v));
  };
  for (const [key, v] of Object.entries(settings)) {
    if (key === 'agent' || key === 'judge' || key === 'gate') {
      for (const [k, w] of Object.entries((v ?? {}) as object)) add(`${key}.${k}`, w);
    } else add(key, v);
  }
  return args;
}

/** A report printed on stdout (`run --json`, `rejudge --json`), checked as report.json is. */
export function reportFromStdout(r: { stdout: unknown; stderr?: unknown }): KitReport {
  let raw: unknown;
  try {
    raw = JSON.parse(String(r.stdout));
  } catch {
    assert.fail(`printed no JSON report:\n${String(r.stdout)}\n${String(r.stderr ?? '')}`);
  }
  assert.equal((raw as { schema_version?: unknown }).schema_version, REPORT_SCHEMA_VERSION);
  return reportSchema.parse(raw);
}

/** report.json of a run directory (or the file), checked against the schema: the one way tests read a report. */
export const readReportFile = (runDirOrFile: string): KitReport => readReport(runDirOrFile);

/**
 * report.json as plain JSON, unchecked: only for a test that edits a report to hand memeval a
 * broken or foreign one (the schema would drop what it does not declare).
 */
export function rawReport(runDirOrFile: string): Record<string, unknown> {
  const file = runDirOrFile.endsWith('.json') ? runDirOrFile : join(runDirOrFile, 'report.json');
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
}

/** Scenarios written into `<dir>/scenarios` (file `<id>.json5`); the folder. */
export function scenarioFolder(dir: string, scenarios: readonly Decl[], name = 'scenarios'): string {
  const d = join(dir, name);
  mkdirSync(d, { recursive: true });
  for (const s of scenarios) {
    assert.equal(typeof s.id, 'string', 'a scenario written by the kit needs an id');
    writeJson(join(d, `${s.id as string}.json5`), s);
  }
  return d;
}

/** A target declaration written as `<dir>/<name>.json5`; the file. */
export function targetFile(dir: string, decl: Decl): string {
  assert.equal(typeof decl.name, 'string', 'a target written by the kit needs a name');
  return writeJson(join(dir, `${decl.name as string}.json5`), decl);
}

/** `n` copies of the minimal scenario, s1 … sn, with `over` fields (the scenarios of faulty.ts scenarioDir). */
export function copies(n: number, over: Decl = {}): Decl[] {
  return Array.from({ length: n }, (_, i) => scenario(`s${i + 1}`, over));
}

/** A scenario whose well-behaved phase remembers `content` and checks it was kept once; no violation. */
export function keeps(id: string, content: string, contains = content, over: Decl = {}): Decl {
  return scenario(id, {
    deterministic: { well_behaved: [{ op: 'remember', content }], violation: null },
    assertions: [{ kind: 'count', name: 'kept', phase: 'well-behaved', contains, op: 'eq', value: 1 }],
    ...over,
  });
}

export const HOSTILE_DIR = join(ROOT, 'eval', 'hostile');
export const HOSTILE_SERVER = join(HOSTILE_DIR, 'hostile.mjs');

/** The tools of eval/hostile/hostile.mjs, as its shipped declarations map memeval's ops to them. */
const HOSTILE_OPS = {
  remember: [
    {
      tool: 'remember',
      args: { text: '{{content}}', category: '{{category}}', subject: '{{subject}}', source: '{{source}}' },
      capture_id: 'stored (mem-\\d+)',
    },
  ],
  recall: [{ tool: 'recall', args: { query: '{{query}}' } }],
  forget: [{ tool: 'forget', args: { id: '{{memory.id}}' } }],
  update: [{ tool: 'update', args: { id: '{{memory.id}}', text: '{{content}}' } }],
  expire: [{ tool: 'expire', args: {} }],
  curate: [{ tool: 'curate', args: {} }],
  curate_dry_run: [{ tool: 'curate', args: { dry_run: true } }],
};
export type HostileOp = keyof typeof HOSTILE_OPS;

const HOSTILE_VIEWS = {
  jsonl:
    "SELECT json_extract(json, '$.id') AS id, json_extract(json, '$.text') AS content, json_extract(json, '$.category') AS category, json_extract(json, '$.source') AS source, json_extract(json, '$.subject') AS subject, json_extract(json, '$.at') AS created_at, CASE WHEN json_extract(json, '$.deleted') THEN 1 ELSE 0 END AS is_deleted FROM store.records",
  sqlite:
    'SELECT id, text AS content, category, source, subject, updated_at AS created_at, deleted AS is_deleted FROM store.memories',
};

export interface HostileOptions {
  /** default `hostile-<mode>` */
  name?: string;
  /** the store hostile.mjs keeps: a JSONL file or an SQLite table (default jsonl) */
  store?: 'jsonl' | 'sqlite';
  /** the ops declared (default every one it has) */
  ops?: HostileOp[];
  /** point it at the cell's model provider (it asks for an embedding of every write and query) */
  provider?: boolean;
  /** declare its `memories` CLI (eval/hostile/hostile-cli.mjs) */
  cli?: boolean;
  /** more server.env */
  env?: Record<string, string>;
  /** top-level fields added or replaced (claims, recall_results, …) */
  decl?: Decl;
}

/** hostileDecl written to `<dir>/<name>.json5`; the file. */
export function hostileTarget(dir: string, mode: string, o: HostileOptions = {}): string {
  return targetFile(dir, hostileDecl(mode, o));
}

/**
 * A declaration of eval/hostile/hostile.mjs in `mode` (honest, racy, crash-exit, …: see its
 * header), as the shipped eval/hostile declarations write it.
 */
export function hostileDecl(mode: string, o: HostileOptions = {}): Decl {
  const store = o.store ?? 'jsonl';
  const path = store === 'sqlite' ? '{{data}}/store.db' : '{{data}}/store.jsonl';
  const ops = Object.fromEntries(
    (o.ops ?? (Object.keys(HOSTILE_OPS) as HostileOp[])).map((op) => [op, HOSTILE_OPS[op]]),
  );
  return {
    name: o.name ?? `hostile-${mode}`,
    description: `eval/hostile/hostile.mjs in ${mode} mode, declared by the test`,
    server: {
      command: '{{node}}',
      args: ['{{memeval_dir}}/eval/hostile/hostile.mjs'],
      env: { HOSTILE: mode, STORE: path, ...(o.provider ? { PROVIDER: '{{provider}}' } : {}), ...o.env },
      startup_timeout_ms: 20000,
      call_timeout_ms: 20000,
    },
    ...(o.cli
      ? { cli: { memories: { command: '{{node}}', args: ['{{memeval_dir}}/eval/hostile/hostile-cli.mjs'] } } }
      : {}),
    store: { format: store, path },
    views: { memories: HOSTILE_VIEWS[store] },
    ops,
    ...('recall' in ops ? { recall_results: { json: 'results' } } : {}),
    ...o.decl,
  };
}
