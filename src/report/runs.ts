import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InputError } from '../util/errors.js';

export interface RunEntry {
  run_id: string;
  dir: string;
  /** null when report.json is missing or unreadable (a run cut off before its report) */
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

/** Run directories under `runsDir`, oldest first (run ids start with their UTC start time). */
export function listRuns(runsDir: string): RunEntry[] {
  const root = resolve(runsDir);
  if (!existsSync(root)) return [];
  return readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory() && /^\d{4}-\d\d-\d\dT/.test(e.name))
    .map((e) => e.name)
    .sort()
    .map((id) => {
      const dir = join(root, id);
      let head: {
        status?: string;
        started_at?: string;
        summary?: { cells?: number; failed?: number; unsupported?: number; by_verdict?: { unsupported?: number } };
      } | null = null;
      try {
        head = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'));
      } catch {
        head = null;
      }
      return {
        run_id: id,
        dir,
        status: head?.status ?? null,
        started_at: head?.started_at ?? null,
        cells: head?.summary?.cells ?? null,
        failed: head?.summary?.failed ?? null,
        unsupported: head?.summary ? (head.summary.unsupported ?? head.summary.by_verdict?.unsupported ?? 0) : null,
        bytes: dirBytes(dir),
      };
    });
}

export function latestRunDir(runsDir: string): string {
  const runs = listRuns(runsDir);
  if (!runs.length) throw new InputError(`${resolve(runsDir)}: no runs here; pass a run directory (or --runs <dir>)`);
  return runs[runs.length - 1].dir;
}

/** Remove all but the newest `keep` runs; returns the removed ones. */
export function pruneRuns(runsDir: string, keep: number): RunEntry[] {
  const runs = listRuns(runsDir);
  const doomed = runs.slice(0, Math.max(0, runs.length - keep));
  for (const r of doomed) rmSync(r.dir, { recursive: true, force: true });
  return doomed;
}
