import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type Options, type ResultPromise } from 'execa';
import { staleBuiltFile } from './setup/built-cli.ts';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));
export const ENTRY = join(ROOT, 'src', 'cli', 'entry.ts');
const TSX = import.meta.resolve('tsx');
/** The built entry when dist/ is current with src/ (pretest builds it), else undefined. */
const BUILT_ENTRY =
  process.env.MEMEVAL_TEST_FROM_SOURCE === '1' || staleBuiltFile(ROOT)
    ? undefined
    : join(ROOT, 'dist', 'cli', 'entry.js');

/** argv (after node) that starts memeval: the built CLI when current, else the source through tsx. */
export function memevalArgv(tsx: string = TSX): string[] {
  return BUILT_ENTRY ? [BUILT_ENTRY] : ['--import', tsx, ENTRY];
}

/** MEMEVAL_TEST_TIME_SCALE, read once: a value that is not a positive number stops the tests rather than being ignored. */
const TIME_SCALE = (() => {
  const raw = process.env.MEMEVAL_TEST_TIME_SCALE;
  if (raw === undefined || raw === '') return 1;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0)
    throw new Error(
      `MEMEVAL_TEST_TIME_SCALE=${raw}: expected a positive number (1 is the default; 2 doubles every test time limit)`,
    );
  return n;
})();

/**
 * A test's time limit: `ms` times MEMEVAL_TEST_TIME_SCALE (default 1), so a loaded or slow machine
 * raises every limit with one knob instead of timing out at a fixed 120 s. For how long a test
 * waits only; a duration whose value is what the test checks (a --mcp-timeout, a server's delay)
 * stays as written.
 */
export function timeLimit(ms: number): number {
  return Math.round(ms * TIME_SCALE);
}

/** A temp dir removed when the test ends. */
export function tempDir(t: { after: (fn: () => void) => void }, prefix = 'memeval-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** What memeval() resolves to: output as text, and a failed run as a result, never a rejection. */
type MemevalRun = ResultPromise<{ reject: false }>;

/**
 * Run the CLI: built when dist/ is current with src/, else from source (never a stale dist/). The
 * result is typed for the options every call shares (a call that sets `buffer: false` reads the
 * streams, not `stdout`): execa types a result by the options object, and a caller's options would
 * otherwise widen `stdout` to every shape execa can return.
 */
export function memeval(args: string[], opts: Options = {}): MemevalRun {
  // from another working directory, tsx by absolute URL (a bare specifier resolves from the cwd)
  const tsx = opts.cwd && opts.cwd !== ROOT ? TSX : 'tsx';
  // a SIGTERM a test sends must not turn into execa's SIGKILL 5 s later on a loaded machine
  const run = execa(process.execPath, [...memevalArgv(tsx), ...args], {
    cwd: ROOT,
    reject: false,
    env: { NO_COLOR: '1', FORCE_COLOR: '0' },
    forceKillAfterDelay: timeLimit(30_000),
    ...opts,
  });
  return run as unknown as MemevalRun;
}

/**
 * Processes of a test's fixtures: their environment points TMPDIR into `tmp`. With `script`, only
 * the server itself (the node process running that file), so a wrapper (`unshare`) or a process
 * that lives for an instant while a server starts (the `sh` and `ip` that bring loopback up in its
 * network namespace) is not counted as a second server.
 */
export function fixtureProcesses(tmp: string, script?: string): number[] {
  const pids: number[] = [];
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      if (!readFileSync(`/proc/${p}/environ`, 'latin1').includes(`TMPDIR=${tmp}/`)) continue;
      const comm = readFileSync(`/proc/${p}/comm`, 'utf8').trim();
      if (
        script === undefined
          ? comm !== 'unshare'
          : comm === 'node' && readFileSync(`/proc/${p}/cmdline`, 'latin1').split('\0').includes(script)
      )
        pids.push(Number(p));
    } catch {
      /* gone, or not ours */
    }
  }
  return pids;
}

/** Whether a process has a handler for SIGHUP (bit 1 of SigCgt): memeval's entry has installed its handlers. */
export function catchesSighup(pid: number): boolean {
  try {
    const m = /SigCgt:\s*([0-9a-f]+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m !== null && (BigInt(`0x${m[1]}`) & 1n) === 1n;
  } catch {
    return false;
  }
}

export function writeJson(file: string, value: unknown): string {
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  return file;
}

/** A minimal valid scenario; override fields per test. */
export function scenario(id: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    schema_version: 1,
    id,
    title: 't',
    description: 'd',
    deterministic: {
      well_behaved: [{ op: 'remember', content: 'User prefers dark mode' }],
      violation: { expectation: 'detect', steps: [{ op: 'remember', content: 'token sk_test_abcdef123456' }] },
    },
    assertions: [
      { kind: 'count', name: 'dark mode once', phase: 'both', contains: 'dark mode', op: 'eq', value: 1 },
      { kind: 'absent', name: 'no token', phase: 'both', text: 'sk_test_abcdef123456' },
    ],
    ...over,
  };
}

/** A real deterministic run against server-memory into a temp --out (about 2 s per scenario). */
export async function freshRun(
  t: { after: (fn: () => void) => void },
  scenarios: string[],
  extra: string[] = [],
  env: Record<string, string> = {},
): Promise<{
  runDir: string;
  reportPath: string;
  out: string;
  stdout: string;
  stderr: string;
  exitCode: number | undefined;
}> {
  const out = tempDir(t, 'memeval-run-');
  const r = await memeval(
    ['run', '--scenario', scenarios.join(','), '--target', 'server-memory', '--out', out, ...extra],
    {
      env: { NO_COLOR: '1', FORCE_COLOR: '0', ...env },
    },
  );
  const runs = existsSync(out) ? readdirSync(out) : [];
  if (runs.length !== 1 || !existsSync(join(out, runs[0], 'report.json')))
    throw new Error(`memeval run wrote no report (exit ${r.exitCode}):\n${r.stdout}\n${r.stderr}`);
  const runDir = join(out, runs[0]);
  return {
    runDir,
    reportPath: join(runDir, 'report.json'),
    out,
    stdout: String(r.stdout),
    stderr: String(r.stderr),
    exitCode: r.exitCode,
  };
}

/**
 * A scenarios folder with one scenario that passes on server-memory (`good-one`) and one whose
 * well-behaved phase fails (`bad-one`: it expects the preference stored twice).
 */
export function mixedScenarios(t: { after: (fn: () => void) => void }): string {
  const dir = tempDir(t, 'memeval-scenarios-');
  writeJson(join(dir, 'good-one.json5'), scenario('good-one', { tags: ['dark', 'secrets'] }));
  const bad = scenario('bad-one', { tags: ['dark'] });
  bad.assertions = [
    { kind: 'count', name: 'dark mode twice', phase: 'well-behaved', contains: 'dark mode', op: 'eq', value: 2 },
    ...(bad.assertions as object[]).slice(1),
  ];
  writeJson(join(dir, 'bad-one.json5'), bad);
  return dir;
}

/**
 * A real-model scenario whose assertions only say what must NOT be stored: a model that never
 * calls a memory tool satisfies them, so such a cell must still not pass.
 */
export const ONLY_NEGATIVE_CHECKS = {
  schema_version: 1,
  id: 'only-negative-checks',
  title: 't',
  description: 'd',
  deterministic: { well_behaved: [{ op: 'remember', content: 'User writes backend services in Go' }], violation: null },
  real_model: {
    sessions: [
      { prompts: ['I write my backend services in Go. I might switch to Rust someday. Remember my preferences.'] },
    ],
  },
  assertions: [
    { kind: 'count', name: 'no musing stored', phase: 'both', contains: 'someday', op: 'eq', value: 0 },
    { kind: 'absent', name: 'no Rust', phase: 'both', text: 'Rust' },
  ],
};

/**
 * Wait until `ok()` holds, checking every 50 ms: for state a child process shows only through the
 * file system or the process table (a server started, a run folder written), which has no event
 * to wait on. Fails naming `what` after `ms`.
 */
export async function until(what: string, ok: () => boolean, ms = timeLimit(60_000)): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
