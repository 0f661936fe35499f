import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InputError } from '../util/errors.js';
import { liveness } from '../util/live-run.js';

/** What wrote an output folder: a run, or a rejudge, calibrate or fuzz command (by its name's prefix). */
export type RunKind = 'run' | 'rejudge' | 'calibrate' | 'fuzz';

/** `<kind>-<UTC start>` or a run's `<UTC start>-<random>`; fuzz writes the time with `-` for `:`. */
const OUTPUT_NAME = /^(?:(rejudge|calibrate|fuzz)-)?(\d{4}-\d\d-\d\dT.*)$/;

/** The file each kind writes last, whose `status` says how it ended. */
const RESULT_FILE: Record<RunKind, string | null> = {
  run: 'report.json',
  rejudge: 'report.json',
  calibrate: 'calibration.json',
  fuzz: null,
};

export interface RunEntry {
  run_id: string;
  kind: RunKind;
  dir: string;
  /** a process is still writing it (see live-run.ts): never pruned */
  running: boolean;
  /** why it counts as running */
  running_why?: string;
  /** "cut off" for a run whose writer is gone before its report; null when the result file is otherwise missing or unreadable (a fuzz output) */
  status: string | null;
  started_at: string | null;
  cells: number | null;
  failed: number | null;
  /** cells that checked nothing (unsupported); null without a report */
  unsupported: number | null;
  /** the run's layer, targets and agent (from its report, or a running or cut-off run's live.json); null where it records none */
  layer: string | null;
  targets: string[] | null;
  agent: string | null;
  bytes: number;
}

interface Head {
  status?: string;
  started_at?: string;
  layer?: string;
  targets?: { name?: string }[];
  options?: { agent?: string | null };
  summary?: { cells?: number; failed?: number; unsupported?: number; by_verdict?: { unsupported?: number } };
}

function dirBytes(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) n += dirBytes(p);
    else if (e.isFile()) n += statSync(p).size;
  }
  return n;
}

/** The UTC time a folder's name holds (`2025-01-02T03-04-05Z`, fuzz's `…T03-04-05-678Z`), in ms; NaN when it holds none. */
function nameTime(time: string): number {
  const m = /^(\d{4}-\d\d-\d\d)T(\d\d)[-:](\d\d)[-:](\d\d)(?:[.-](\d{3}))?Z/.exec(time);
  return m ? Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5] ?? '000'}Z`) : NaN;
}

/**
 * Output folders under `runsDir` (runs and rejudge, calibrate and fuzz outputs), oldest first by
 * start time: the `started_at` their report (or a running or cut-off run's live.json) records, to
 * the millisecond, else the second their name holds. A name has one-second resolution and a random
 * suffix, so two runs started in one second are told apart by started_at, never by the suffix.
 */
export function listRuns(runsDir: string): RunEntry[] {
  const root = resolve(runsDir);
  if (!existsSync(root)) return [];
  return readdirSync(root, { withFileTypes: true })
    .flatMap((e) => {
      const m = e.isDirectory() ? OUTPUT_NAME.exec(e.name) : null;
      if (!m) return [];
      const r = entry(join(root, e.name), e.name, (m[1] ?? 'run') as RunKind);
      const started = r.started_at === null ? NaN : Date.parse(r.started_at);
      return [{ r, at: Number.isNaN(started) ? nameTime(m[2]) : started }];
    })
    .sort((a, b) => (a.at === b.at || Number.isNaN(a.at - b.at) ? a.r.run_id.localeCompare(b.r.run_id) : a.at - b.at))
    .map(({ r }) => r);
}

/** A JSON file's object, or null when it is missing or not JSON (a run still writing, a torn file). */
function readHead<T>(file: string): T | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return null;
  }
}

function entry(dir: string, id: string, kind: RunKind): RunEntry {
  const file = RESULT_FILE[kind];
  const head = file ? readHead<Head>(join(dir, file)) : null;
  // a run without its report yet (running, or cut off): its live.json says when it started and what it runs
  const liveHead = kind === 'run' && !head ? readHead<Head>(join(dir, 'live.json')) : null;
  const about = head ?? liveHead;
  const started = about?.started_at;
  const targets = Array.isArray(about?.targets)
    ? about.targets.map((t) => t?.name).filter((n): n is string => typeof n === 'string')
    : null;
  const live = liveness(dir);
  return {
    run_id: id,
    kind,
    dir,
    running: live.live,
    ...(live.live ? { running_why: live.why } : {}),
    // a run whose writer died before its report left its cell log (report/run-log.ts): cut off
    status: head?.status ?? (!live.live && kind === 'run' && existsSync(join(dir, 'live.json')) ? 'cut off' : null),
    started_at: typeof started === 'string' ? started : null,
    cells: head?.summary?.cells ?? null,
    failed: head?.summary?.failed ?? null,
    unsupported: head?.summary ? (head.summary.unsupported ?? head.summary.by_verdict?.unsupported ?? 0) : null,
    layer: typeof about?.layer === 'string' ? about.layer : null,
    targets,
    agent: typeof about?.options?.agent === 'string' ? about.options.agent : null,
    bytes: dirBytes(dir),
  };
}

/** The newest run (not a rejudge, calibrate or fuzz output). */
export function latestRunDir(runsDir: string): string {
  const runs = listRuns(runsDir).filter((r) => r.kind === 'run');
  if (!runs.length) throw new InputError(`${resolve(runsDir)}: no runs here; pass a run directory (or --runs <dir>)`);
  return runs[runs.length - 1].dir;
}

/**
 * Remove all but the newest `keep` output folders (of every kind). One that a process is still
 * writing is never removed: it is returned in `kept` with the reason.
 */
export function pruneRuns(runsDir: string, keep: number): { removed: RunEntry[]; kept: RunEntry[] } {
  const runs = listRuns(runsDir);
  const old = runs.slice(0, Math.max(0, runs.length - keep));
  const removed: RunEntry[] = [];
  const kept: RunEntry[] = [];
  for (const r of old) {
    // asked again now, not from the listing: a run may have started writing since
    const live = liveness(r.dir);
    if (live.live) kept.push({ ...r, running: true, running_why: live.why });
    else (rmSync(r.dir, { recursive: true, force: true }), removed.push(r));
  }
  return { removed, kept };
}
