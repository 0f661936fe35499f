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
  bytes: number;
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

/** Output folders under `runsDir` (runs and rejudge, calibrate and fuzz outputs), oldest first by start time. */
export function listRuns(runsDir: string): RunEntry[] {
  const root = resolve(runsDir);
  if (!existsSync(root)) return [];
  return readdirSync(root, { withFileTypes: true })
    .flatMap((e) => {
      const m = e.isDirectory() ? OUTPUT_NAME.exec(e.name) : null;
      return m ? [{ id: e.name, kind: (m[1] ?? 'run') as RunKind, time: m[2] }] : [];
    })
    .sort((a, b) => (a.time === b.time ? a.id.localeCompare(b.id) : a.time < b.time ? -1 : 1))
    .map(({ id, kind }) => entry(join(root, id), id, kind));
}

function entry(dir: string, id: string, kind: RunKind): RunEntry {
  let head: {
    status?: string;
    started_at?: string;
    summary?: { cells?: number; failed?: number; unsupported?: number; by_verdict?: { unsupported?: number } };
  } | null = null;
  const file = RESULT_FILE[kind];
  try {
    head = file ? JSON.parse(readFileSync(join(dir, file), 'utf8')) : null;
  } catch {
    head = null;
  }
  const live = liveness(dir);
  return {
    run_id: id,
    kind,
    dir,
    running: live.live,
    ...(live.live ? { running_why: live.why } : {}),
    // a run whose writer died before its report left its cell log (report/run-log.ts): cut off
    status: head?.status ?? (!live.live && kind === 'run' && existsSync(join(dir, 'live.json')) ? 'cut off' : null),
    started_at: head?.started_at ?? null,
    cells: head?.summary?.cells ?? null,
    failed: head?.summary?.failed ?? null,
    unsupported: head?.summary ? (head.summary.unsupported ?? head.summary.by_verdict?.unsupported ?? 0) : null,
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
