import { basename, dirname } from 'node:path';
import { Worker } from 'node:worker_threads';

/**
 * The watch runs on a thread of its own, which signals the server's process group itself: the
 * main thread may be busy with another cell (building its evidence, judging) for longer than a
 * server takes to finish a write, and a kill "while it is storing" must land while it stores.
 */
const WATCHER = `
const { watch } = require('node:fs');
const { parentPort, workerData: d } = require('node:worker_threads');
let fired = false;
const w = watch(d.dir, { recursive: d.folder, persistent: true }, (_event, name) => {
  const file = name === null ? '' : String(name);
  if (fired || (d.prefix !== null && !file.startsWith(d.prefix))) return;
  fired = true;
  try { process.kill(-d.group, d.signal); } catch { try { process.kill(d.group, d.signal); } catch {} }
  w.close();
  parentPort.postMessage({ changed: file });
});
w.on('error', (e) => parentPort.postMessage({ error: e.message }));
parentPort.postMessage({ ready: true });
`;

/** A store's files being watched; see watchStoreFiles. */
export interface StoreKillWatch {
  /** resolves with the first file that changed, once the watch has signalled the group */
  changed: Promise<string>;
  close(): void;
}

/**
 * Watch a store's files for their first change from now and, at that change, send `signal` to
 * the process group `group` at once: a file store's folder (any file under it), or the folder of
 * a single-file store, for the file and its siblings (an SQLite journal or WAL, a `.tmp` written
 * before a rename): every name that starts with the store's. Event driven (inotify on Linux),
 * not polled. Resolves once the watch is in place; undefined when the folder cannot be watched.
 */
export async function watchStoreFiles(
  path: string,
  folder: boolean,
  kill: { group: number; signal: NodeJS.Signals },
): Promise<StoreKillWatch | undefined> {
  const worker = new Worker(WATCHER, {
    eval: true,
    workerData: {
      dir: folder ? path : dirname(path),
      folder,
      prefix: folder ? null : basename(path),
      group: kill.group,
      signal: kill.signal,
    },
  });
  worker.unref();
  let fire!: (name: string) => void;
  const changed = new Promise<string>((resolve) => (fire = resolve));
  const ready = await new Promise<boolean>((resolve) => {
    worker.on('message', (m: { ready?: true; changed?: string; error?: string }) => {
      if (m.ready) resolve(true);
      else if (m.changed !== undefined) fire(m.changed || basename(path));
      else resolve(false);
    });
    worker.once('error', () => resolve(false));
    worker.once('exit', () => resolve(false));
  });
  const close = () => void worker.terminate();
  if (!ready) {
    close();
    return undefined;
  }
  return { changed, close };
}
