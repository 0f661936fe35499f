import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive } from './processes.js';

/**
 * A run's output folder says that a process is still writing it (`.running` holds its pid), so
 * `runs prune` never deletes it under the run and `runs list` and `view` can say it is running.
 * A process that died leaves the file behind naming a dead pid: not live.
 */
const MARK = '.running';

/**
 * Mark `dir` as being written by this process; the returned function unmarks it, and removes the
 * folder again when this made it and nothing was written there (a fuzz campaign that flagged nothing).
 */
export function markLive(dir: string): () => void {
  const made = mkdirSync(dir, { recursive: true }) !== undefined;
  const file = join(dir, MARK);
  writeFileSync(file, JSON.stringify({ pid: process.pid, started_at: new Date().toISOString() }) + '\n');
  return () => {
    rmSync(file, { force: true });
    if (made && readdirSync(dir).length === 0) rmSync(dir, { recursive: true, force: true });
  };
}

export type Liveness = { live: false } | { live: true; why: string };

/**
 * Whether a process may still be writing `dir`. A marker that cannot be read (torn, or written by
 * another version) counts as live: deleting a run that is being written loses its evidence, while
 * keeping a dead one only costs space, and the reason says how to clear it.
 */
export function liveness(dir: string): Liveness {
  let text: string;
  try {
    text = readFileSync(join(dir, MARK), 'utf8');
  } catch {
    return { live: false };
  }
  let pid: unknown;
  try {
    pid = (JSON.parse(text) as { pid?: unknown }).pid;
  } catch {
    pid = undefined;
  }
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0)
    return { live: true, why: `${MARK} cannot be read; delete ${join(dir, MARK)} if no memeval is writing this run` };
  return isAlive(pid) ? { live: true, why: `still being written by pid ${pid}` } : { live: false };
}
